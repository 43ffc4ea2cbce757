"""Approvals as chat messages: the action waiting for the person, and each answer kept on its
step (`ActionStep.approvals`), which the stored chat and the exports show. Pure, no gradio."""

from __future__ import annotations

import json
import re
from typing import Any

from agents.memory.steps import ActionStep
from smolui.render.durations import format_duration, plain_title
from smolui.render.messages import Message, clip, fenced, message, thought_text

# Words only: symbols such as a pause sign need an emoji font many browsers lack (a box).
WAITING_TITLE = "Waiting for your approval"
WAITING_LOG = "nothing runs until you answer"
PAUSED_LOG = "nothing runs until you answer below"
PAUSED_WHAT = "waits for your approval"  # the paused step's title, in place of "thinking…"
# What a running step's title says it does ("Step 1 · thinking…", "· running code…").
_DOING = re.compile(r" · [^·]*…$")
# A paused step's children the card shows once, cleaned: the streamed thought (with the
# model's raw "Thought:" and its code) and the code block.
_SHOWN_IN_CARD = re.compile(r"\.(t|c[0-9]+)$")
PENDING_PREFIX = "approval-"  # the pending message's id: this + the approval's id
# An action a gone turn held (the app restarted), left unanswered when the next message came.
WITHDRAWN_TITLE = "Not answered"
WITHDRAWN_LOG = "did not run"
WITHDRAWN_WHAT = "not answered"  # the paused step's title, in place of "waits for your approval"
WITHDRAWN_NOTE = "_A new message came before this action was answered: it did not run._"
_ASK = "\n\nRun it, edit it, skip it or stop the turn with the buttons under the chat."
_DECIDED = {
    "run": "Approved",
    "edit": "Edited, then approved",
    "skip": "Skipped",
    "stop": "Stopped",
}


def arguments_text(arguments: Any) -> str:
    """A tool call's arguments as the person reads and edits them (indented JSON).

    Args:
        arguments: The arguments (a dict, usually).
    """
    try:
        return json.dumps(arguments, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(arguments)


def render_pending_approval(
    approval_id: str,
    kind: str,
    step_number: int,
    code: str | None,
    tool_name: str | None,
    arguments: Any,
    thought: str | None = None,
) -> Message:
    """The action the turn holds, shown until someone answers: open, without a spinner (a
    spinner, and the page's step timer it brings, would say the agent works).

    Args:
        approval_id: The pending approval's id (the message's id carries it).
        kind: "code" or "tool".
        step_number: The step the action belongs to.
        code: The code block (or the code calling the tool).
        tool_name: The tool called.
        arguments: The call's arguments.
        thought: What the model wrote before the action.
    """
    if kind == "code":
        what = f"Step {step_number} wants to run this code:"
        body = fenced(clip(code or ""), "python")
    else:
        what = f"Step {step_number} wants to call **{tool_name}** with:"
        body = fenced(clip(arguments_text(arguments)), "json")
    parts = [what, body]
    said = thought_text(thought, code) if thought else ""  # no raw "Thought:", no code again
    if said:
        parts.insert(0, f"_{clip(said, 600)}_")
    parts.append(_ASK.strip())
    return message(
        "\n\n".join(parts),
        title=WAITING_TITLE,
        id=f"{PENDING_PREFIX}{approval_id}",
        log=WAITING_LOG,
    )


def paused(chat: list[Message]) -> list[Message]:
    """The chat while an action waits for the person: its running steps no longer spin (the
    page times a spinning step as work) and their titles say they wait; their thought and
    code show once, in the card under them; the rest as it was.

    Args:
        chat: The turn's chat, its open step pending.
    """
    shown, waiting = [], set()
    for item in chat:
        metadata = item.get("metadata") or {}
        if metadata.get("parent_id") in waiting and _SHOWN_IN_CARD.search(
            str(metadata.get("id") or "")
        ):
            continue
        if metadata.get("status") != "pending":
            shown.append(item)
            continue
        still = {key: value for key, value in metadata.items() if key != "status"}
        if still.get("title") and not still.get("parent_id"):  # the step's own title line
            title = plain_title(str(still["title"]))  # no live timer: it does not work
            still["title"] = _DOING.sub(f" · {PAUSED_WHAT}", title)
            still["log"] = PAUSED_LOG
            waiting.add(still.get("id"))
        shown.append({**item, "metadata": still})
    return shown


def is_pending_approval(item: Message) -> bool:
    """Whether the message is the card of an action waiting for the person.

    Args:
        item: A chat message.
    """
    metadata = item.get("metadata") or {}
    return str(metadata.get("id") or "").startswith(PENDING_PREFIX)


def waits_for_answer(chat: list[Message]) -> bool:
    """Whether the chat, as kept, ends with an action waiting for the person (a page opening
    it shows the card, not a note that the turn was interrupted).

    Args:
        chat: A stored chat.
    """
    return bool(chat) and is_pending_approval(chat[-1])


def withdrawn(chat: list[Message]) -> list[Message]:
    """The chat a new message goes on from while an action a gone turn held is still shown
    (the app restarted, then the person wrote instead of answering): the card no longer asks,
    it says the action did not run, and its step no longer says it waits.

    Args:
        chat: The chat as kept (`paused`, then the card), and whatever came after it.
    """
    shown = []
    for item in chat:
        metadata = item.get("metadata") or {}
        if is_pending_approval(item):
            asked = str(item.get("content") or "").removesuffix(_ASK)
            own = str(metadata.get("id") or "").removeprefix(PENDING_PREFIX)
            item = message(f"{asked}\n\n{WITHDRAWN_NOTE}", title=WITHDRAWN_TITLE,
                           id=f"withdrawn-{own}", log=WITHDRAWN_LOG)  # fmt: skip
        elif not metadata.get("parent_id") and metadata.get("log") == PAUSED_LOG:
            title = str(metadata.get("title") or "").replace(PAUSED_WHAT, WITHDRAWN_WHAT)
            item = {**item, "metadata": {**metadata, "title": title, "log": WITHDRAWN_LOG}}
        shown.append(item)
    return shown


def before_the_wait(chat: list[Message]) -> list[Message]:
    """The chat a resumed turn goes on from: the kept chat without the card and without the
    paused step (and its children), which the resumed turn shows again as it runs.

    Args:
        chat: The chat kept while the action waited (`paused`, then the card).
    """
    dropped: set[str] = set()
    kept = []
    for item in chat:
        metadata = item.get("metadata") or {}
        own, parent = str(metadata.get("id") or ""), metadata.get("parent_id")
        step_paused = not parent and metadata.get("log") == PAUSED_LOG  # as `paused` left it
        if is_pending_approval(item) or step_paused or (parent and parent in dropped):
            if own:
                dropped.add(own)
            continue
        kept.append(item)
    return kept


def render_approvals(step: ActionStep, parent_id: str) -> list[Message]:
    """The answers given in a finished step, as children of its block.

    Args:
        step: The finished step (`step.approvals`: the `ApprovalRecord`s).
        parent_id: The step block's id.
    """
    shown = []
    for index, record in enumerate(step.approvals or []):
        what = "the code" if record.kind == "code" else f"the call to {record.tool_name}"
        lines = [f"{_DECIDED.get(record.decision, record.decision)}: {what}."]
        if record.decision == "edit" and record.kind == "code":  # the step shows what ran
            proposed = str(record.proposed or "")
            lines.append("The model proposed:\n\n" + fenced(clip(proposed), "python"))
        elif record.decision == "edit":  # a call from code: the step shows only the code
            ran = record.ran if isinstance(record.ran, str) else arguments_text(record.ran)
            lines.append("What ran instead of the proposal:\n\n" + fenced(clip(ran), "json"))
        if record.reason:
            lines.append(f"Reason: {clip(record.reason, 600)}")
        shown.append(
            message(
                "\n\n".join(lines),
                title="Approval",
                id=f"{parent_id}.a{index}",
                parent_id=parent_id,
                log=f"{format_duration(record.waited)} waiting",
            )
        )
    return shown
