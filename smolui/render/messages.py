"""Rendering: agent steps and answers -> chat messages (dicts `gr.Chatbot` accepts). No gradio.

Each step is a collapsible parent message (`metadata.title`, `id`, `status`, and in `log`
what it did, its tokens and its time) whose children (`parent_id`) hold the thought, the code or tool calls,
logs, errors and images. These functions are pure: media become files through an injected
`files` callable. `smolui.turns.view.TurnView` folds a live event stream with them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from agents.errors import AgentError
from agents.executors.previews import as_table
from agents.memory.steps import ActionStep, PlanningStep, ToolCall
from agents.models.messages import TokenUsage
from smolui.render.durations import format_duration
from smolui.render.errors import redact, step_error_title
from smolui.render.step_summary import clean_observations, glyph, shown_notes, step_summary
from smolui.render.tables import table_markdown

Message = dict[str, Any]
# Turns an image or audio value into a chat file dict ({"path", "mime_type"}), or None.
FileSink = Callable[[Any], dict[str, Any] | None]

CODE_TOOL = "python_interpreter"
# Plain words: emoji titles render as boxes where no emoji font is installed.
TABLE_TITLE = "Table"
IMAGE_TITLE = "Image"
MAX_BLOCK_CHARS = 8000
_CODE_FENCE = re.compile(r"```[a-zA-Z0-9_+-]*\n.*?(?:```|$)", re.DOTALL)
_CODE_TAG = re.compile(r"<code>.*?(?:</code>|$)", re.DOTALL)


def fenced(text: str, language: str = "") -> str:
    """Wrap text in a Markdown code fence longer than any backtick run inside it.

    Args:
        text: The content.
        language: Highlighting hint ("python", "json", "text").
    """
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def clip(text: str, limit: int = MAX_BLOCK_CHARS) -> str:
    """Shorten long text for display, saying how much was left out.

    Args:
        text: The text.
        limit: Most characters kept.
    """
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit} more characters)"


def thought_text(model_output: str | None, code: str | None = None) -> str:
    """The model's reasoning without the code (shown separately) or protocol markers.

    Args:
        model_output: What the model wrote for the step.
        code: The code the step ran, if any.
    """
    text = model_output or ""
    if code:
        text = _CODE_TAG.sub("", _CODE_FENCE.sub("", text))
    text = text.replace("<end_code>", "").strip()
    return re.sub(r"^Thought:\s*", "", text).strip()


def format_tokens(usage: TokenUsage | None) -> str:
    """`1,234 tokens (in 1,000 · out 234)`, or "" when unknown.

    Args:
        usage: Token counts.
    """
    if usage is None or not usage.total_tokens:
        return ""
    return (
        f"{usage.total_tokens:,} tokens (in {usage.input_tokens:,} · out {usage.output_tokens:,})"
    )


def media_kind(value: Any) -> str | None:
    """ "image", "audio" or None for a final answer or an observation value.

    Args:
        value: A PIL image, an AgentImage/AgentAudio, or anything else.
    """
    name = type(value).__name__
    module = type(value).__module__ or ""
    if module.startswith("PIL.") or name == "AgentImage":
        return "image"
    if name == "AgentAudio":
        return "audio"
    return None


def message(content: Any, **metadata: Any) -> Message:
    """An assistant message; metadata keys left as None are omitted.

    Args:
        content: Markdown text or a file dict.
        **metadata: title, id, parent_id, status, log.
    """
    meta = {key: value for key, value in metadata.items() if value is not None}
    message: Message = {"role": "assistant", "content": content}
    if meta:
        message["metadata"] = meta
    return message


def render_tool_call(call: ToolCall, call_id: str, parent_id: str) -> Message:
    """A child message showing the code, or a tool call with its arguments.

    Args:
        call: The tool call.
        call_id: The child's metadata id.
        parent_id: The step message's id.
    """
    if call.name == CODE_TOOL:
        code = call.arguments
        if isinstance(code, dict):  # a tool-calling agent's python_interpreter(code=...)
            code = code.get("code", code)
        code = code if isinstance(code, str) else str(code)
        return message(
            fenced(code.strip(), "python"), title="Code", id=call_id, parent_id=parent_id
        )
    try:
        args = json.dumps(call.arguments, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        args = repr(call.arguments)
    return message(
        fenced(clip(args), "json"), title=f"Called `{call.name}`", id=call_id, parent_id=parent_id
    )


def render_action_step(
    step: ActionStep,
    block_id: str,
    files: FileSink | None = None,
    nested: dict[str, list[Message]] | None = None,
) -> list[Message]:
    """A finished step: the parent message and its children.

    Args:
        step: The finished step.
        block_id: The parent message's id (children use it as `parent_id`).
        files: Saves images to files for display.
        nested: Messages of managed agents' runs, keyed by the id of the call child
            (`<block_id>.c<index>`) they belong under.
    """
    children: list[Message] = []
    thought = thought_text(step.model_output, step.code_action)
    if thought:
        children.append(
            message(clip(thought), title="Thought", id=f"{block_id}.t", parent_id=block_id)
        )
    for index, call in enumerate(step.tool_calls or []):
        call_id = f"{block_id}.c{index}"
        children.append(render_tool_call(call, call_id, block_id))
        children += (nested or {}).get(call_id, [])
    observations = clean_observations(step.observations, shown_notes(step))
    if observations:
        title = "Execution logs" if step.code_action else "Observations"
        children.append(
            message(
                fenced(clip(observations), "text"),
                title=title,
                id=f"{block_id}.o",
                parent_id=block_id,
            )
        )
    if step.error is not None:
        children.append(render_step_error(step.error, f"{block_id}.e", block_id))
    table = None if step.is_final_answer else as_table(step.action_output)
    if table is not None:  # a DataFrame as the step's last value, shown like a notebook
        children.append(
            message(
                table_markdown(table), title=TABLE_TITLE, id=f"{block_id}.d", parent_id=block_id
            )
        )
    for index, image in enumerate(step.observations_images or []):
        file = files(image) if files else None
        if file:
            children.append(
                message(file, title=IMAGE_TITLE, id=f"{block_id}.i{index}", parent_id=block_id)
            )
    parent = message(
        "",
        title=step_title(step),
        id=block_id,
        status="done",
        log=step_log(step) or None,
    )
    return [parent, *children]


def step_log(step: ActionStep) -> str:
    """The muted line beside a step's title: what it did, its tokens, its time.

    The time is written here rather than in gradio's `metadata.duration`, which gradio
    formats its own way ("(20.0ms)", "(0s)"): every duration on the page reads alike.

    Args:
        step: The finished step.
    """
    usage = step.token_usage
    tokens = f"{usage.total_tokens:,} tokens" if usage and usage.total_tokens else ""
    waited = sum(record.waited for record in step.approvals or [])
    parts = [step_summary(step), tokens, step_time(step.timing.duration, waited)]
    if waited >= 0.001:
        parts.append(f"{format_duration(waited)} waiting for approval")
    return " · ".join(part for part in parts if part)


def step_time(seconds: float | None, waited: float = 0.0) -> str:
    """A step's own time for its line ("" when unknown): the wait for a person's approval
    is not the step's work, and is written apart.

    Args:
        seconds: `Timing.duration`.
        waited: Seconds the step waited for approvals (`ApprovalRecord.waited`, summed).
    """
    return "" if seconds is None else format_duration(seconds - waited)


def render_step_error(error: AgentError, error_id: str, parent_id: str) -> Message:
    """A visibly distinct child message for an error recorded on a step.

    Args:
        error: The step's error.
        error_id: The child's id.
        parent_id: The step message's id.
    """
    text = error.message or str(error)
    return message(
        fenced(clip(redact(text)), "text"),
        title=f"✕ {step_error_title(error)}",
        id=error_id,
        parent_id=parent_id,
    )


def step_title(step: ActionStep) -> str:
    """`Step 2 · ran code`, `Step 3 · called web_search, visit_webpage`, ...

    Args:
        step: The finished step.
    """
    calls = [c.name for c in step.tool_calls or []]
    if step.is_final_answer and not step.code_action:
        what = "final answer"
    elif step.code_action or CODE_TOOL in calls:
        what = "ran code"
    elif calls:
        what = "called " + ", ".join(dict.fromkeys(calls))
    else:
        what = "thought"
    if step.error is not None:
        what += " · ⚠ error"
    elif step.is_final_answer:
        what += " · answered"
    return f"Step {step.step_number} · {what}"


def render_planning_step(step: PlanningStep, block_id: str) -> list[Message]:
    """A plan: its own kind of block, distinct from action steps.

    Args:
        step: The planning step.
        block_id: The message id.
    """
    parts = (format_tokens(step.token_usage), step_time(step.timing.duration))
    log = " · ".join(part for part in parts if part)
    return [
        message(clip(step.plan.strip()), title="Plan", id=block_id, status="done", log=log or None)
    ]


def render_final_answer(output: Any, files: FileSink | None = None) -> Message:
    """The answer, as a plain assistant message (text, image or audio inline).

    Args:
        output: The run's final answer.
        files: Saves images and audio to files for display.
    """
    if media_kind(output) and files is not None:
        file = files(output)
        if file:
            return {"role": "assistant", "content": file}
    table = as_table(output)
    if table is not None:
        return {"role": "assistant", "content": table_markdown(table)}
    if output is None:
        text = "The agent finished without an answer."
    elif isinstance(output, str):
        text = output
    elif isinstance(output, (dict, list, tuple)):
        try:
            text = fenced(json.dumps(output, indent=2, ensure_ascii=False, default=str), "json")
        except (TypeError, ValueError):
            text = str(output)
    else:
        text = str(output)
    return {"role": "assistant", "content": clip(text, 4 * MAX_BLOCK_CHARS)}


def render_footer(
    steps: int,
    usage: TokenUsage,
    seconds: float,
    state: str = "done",
    outcome: tuple[str, str] | None = None,
) -> Message:
    """The short per-turn summary: outcome, steps, tokens, time.

    Args:
        steps: Action steps the turn took.
        usage: Tokens the turn used.
        seconds: Wall time of the turn.
        state: "done", "stopped" or "failed".
        outcome: (glyph, words) from `smolui.render.step_summary.turn_outcome`; None: from `state`.
    """
    icon, words = outcome or {"stopped": ("■", "stopped"), "failed": ("✕", "failed")}.get(
        state, ("✓", "answered")
    )
    parts = [f"{icon} {words}", f"{steps} step{'s' if steps != 1 else ''}"]
    if usage.total_tokens:
        parts.append(f"{usage.total_tokens:,} tokens")
    parts.append(format_duration(seconds))
    return {"role": "assistant", "content": "<sub>" + " · ".join(parts) + "</sub>"}


def render_notice(text: str, icon: str = "ℹ️") -> Message:
    """A plain assistant message for the app's own notes (upload results, errors, stops).

    Args:
        text: The note (Markdown).
        icon: A leading icon (emoji are shown as font-free glyphs).
    """
    return {"role": "assistant", "content": f"{glyph(icon)} {text}"}


class PassingNotice(dict):
    """A notice told once and kept nowhere: the page shows it as a toast and drops it
    from the chat (a Retry or an edit refused before it ran leaves the chat as it was).
    It reads as a plain notice where nothing drops it.

    Args:
        text: The notice.
        icon: Its leading icon where it shows in the chat.
    """

    def __init__(self, text: str, icon: str = "⚠️"):
        super().__init__(render_notice(text, icon))
        self.text = text
