"""`TurnView`: folds one turn's stream events into chat messages. Pure, no gradio.

The running step is always the last block of messages, so streamed tokens update it in
place and the finished `ActionStep` replaces the whole block: text is never duplicated.
A pending block for the next step is shown as soon as the previous one ends. Events of
managed agents (`SubAgentEvent`) fold into nested views under the call that ran them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agents.events import AgentEvent, CodeOutputSoFar, SubAgentEvent
from agents.memory.steps import (
    ActionStep,
    FinalAnswerStep,
    PlanningStep,
    ToolCall,
    ToolOutput,
)
from agents.models.messages import ChatMessageStreamDelta, TokenUsage
from smolui.render.approval import render_approvals
from smolui.render.durations import running_title
from smolui.render.messages import (
    CODE_TOOL,
    FileSink,
    Message,
    clip,
    fenced,
    message,
    render_action_step,
    render_final_answer,
    render_footer,
    render_notice,
    render_planning_step,
    render_tool_call,
    thought_text,
)
from smolui.render.step_images import lift_step_images
from smolui.render.step_summary import turn_outcome

# Beside a step stopped before the model wrote anything of it.
STOPPED_WAITING = "stopped while the model was thinking"
LIVE_TITLE = "Output so far"
# What the stopped code had printed: the person watched it live, so it stays, named for what
# it is now (the run that would have replaced it never finished).
STOPPED_OUTPUT_TITLE = "Output before the stop"


@dataclass
class _Block:
    """The step being rendered: its messages are `messages[start:]`."""

    start: int
    id: str
    number: int
    since: float  # when it began (seconds since the epoch): the page's timer counts from it
    text: str = ""
    started: bool = False
    calls: list[tuple[str, str]] = field(default_factory=list)  # (tool name, child id)
    # managed agent's name -> (id of the call that runs it, its nested view)
    subviews: dict[str, tuple[str, TurnView]] = field(default_factory=dict)
    placed: set[int] = field(default_factory=set)  # id() of the nested copies now in messages


class TurnView:
    """The chat messages of one turn, updated event by event.

    Args:
        turn_id: Unique prefix for this turn's message ids.
        files: Saves images and audio to files for display.
        label: Prefix for step titles (a managed agent's name when nested).
        clock: Seconds since the epoch, for when a step began (injectable for tests).
    """

    def __init__(
        self,
        turn_id: str,
        files: FileSink | None = None,
        label: str = "",
        clock: Callable[[], float] = time.time,
    ):
        self.turn_id = turn_id
        self.files = files
        self.label = label
        self.clock = clock
        self.messages: list[Message] = []
        self.steps = 0
        self.usage = TokenUsage()
        self.answered = False
        self.finished: list[ActionStep] = []
        self._block: _Block | None = None
        self._blocks = 0
        self._next_step = 1
        self.open_step()

    def open_step(self) -> None:
        """Show a pending block for the next step (no-op when one is open)."""
        if self._block is not None:
            return
        self._blocks += 1
        block_id = f"{self.turn_id}-{self._blocks}"
        self._block = _Block(len(self.messages), block_id, self._next_step, self.clock())
        title = running_title(self._title(self._next_step, "thinking…"), self._block.since)
        self.messages.append(message("", title=title, id=block_id, status="pending"))

    def apply(self, event: AgentEvent) -> None:
        """Update the messages with one stream event; unknown events are ignored.

        Args:
            event: One event of `agent.run(stream=True)`.
        """
        handlers: dict[type, Callable[[Any], None]] = {
            ChatMessageStreamDelta: self._on_delta,
            ToolCall: self._on_tool_call,
            ToolOutput: self._on_tool_output,
            CodeOutputSoFar: self._on_output_so_far,
            ActionStep: self._on_action_step,
            PlanningStep: self._on_planning_step,
            FinalAnswerStep: self._on_final_answer,
            SubAgentEvent: self._on_sub_agent_event,
        }
        for kind, handler in handlers.items():
            if isinstance(event, kind):
                handler(event)
                return
        # Anything else (ActionOutput, a newer agent's event kinds) changes nothing shown.

    def finish(self, state: str, seconds: float, note: str | None = None) -> None:
        """Close the turn: settle the open step, add a note and the footer.

        Args:
            state: "done", "stopped" or "failed".
            seconds: Wall time of the turn.
            note: A message to show before the footer (stop notice, error text).
        """
        self._settle(state)
        if note:
            icon = {"stopped": "■", "failed": "⚠"}.get(state, "ℹ️")  # "Note:" (`glyph`)
            self.messages.append(render_notice(note, icon))
        outcome = turn_outcome(state, self.finished, self.answered)
        self.messages.append(render_footer(self.steps, self.usage, seconds, state, outcome))

    def _settle(self, state: str) -> None:
        """End the open step with the turn, and count it. A step that showed nothing yet is
        dropped, but after a Stop: the person saw it begin ("thinking…"), so it stays, with
        the output its code printed before the stop."""
        block = self._block
        if block is None:
            return
        if not block.started and state != "stopped":
            self._drop_unstarted()
            return
        for _, view in block.subviews.values():
            view._settle(state)
        if state == "stopped":
            self._keep_live_output(block)
        else:  # a live copy, never kept: only final output is
            self._drop_live_output(block)
        self._refresh_nested(block)
        parent = self.messages[block.start]["metadata"]
        parent["status"] = "done"
        parent["title"] = self._title(block.number, state)
        if not block.started:
            parent["log"] = STOPPED_WAITING
        self.steps += 1
        self._block = None

    # -- event handlers ----------------------------------------------------------------------

    def _title(self, number: int, what: str) -> str:
        prefix = f"{self.label} · " if self.label else ""
        return f"{prefix}Step {number} · {what}"

    def _started_block(self) -> _Block:
        self.open_step()
        block = self._block
        if block is None:  # open_step always opens one; this keeps type checkers honest
            raise RuntimeError("no open step")
        block.started = True
        return block

    def _on_delta(self, delta: ChatMessageStreamDelta) -> None:
        if not delta.content:
            return
        block = self._started_block()
        block.text += delta.content
        self._show_thought(block, block.text)

    def _show_thought(self, block: _Block, text: str) -> None:
        """Put `text` in the step's thought child, creating it right after the step."""
        thought = message(text, title="Thought", id=f"{block.id}.t", parent_id=block.id)
        following = self.messages[block.start + 1 : block.start + 2]
        if following and _meta_id(following[0]) == f"{block.id}.t":
            self.messages[block.start + 1] = thought
        else:
            self.messages.insert(block.start + 1, thought)

    def _on_tool_call(self, call: ToolCall) -> None:
        block = self._started_block()
        child_id = f"{block.id}.c{len(block.calls)}"
        block.calls.append((call.name, child_id))
        self.messages.append(render_tool_call(call, child_id, block.id))
        if call.name == CODE_TOOL and block.text:
            self._show_thought(block, thought_text(block.text, str(call.arguments)))
        what = "running code…" if call.name == CODE_TOOL else f"calling {call.name}…"
        title = running_title(self._title(block.number, what), block.since)
        self.messages[block.start]["metadata"]["title"] = title

    def _on_tool_output(self, output: ToolOutput) -> None:
        block = self._started_block()
        text = clip(str(output.observation or output.output or "").strip())
        if text:
            self.messages.append(
                message(
                    fenced(text, "text"),
                    title=f"Output of {output.tool_call.name}",
                    id=f"{block.id}.r{output.id}",
                    parent_id=block.id,
                )
            )

    def _on_output_so_far(self, event: CodeOutputSoFar) -> None:
        """Show what the running code printed so far under its step, in place (the finished
        step's observation replaces it)."""
        block = self._started_block()
        live_id = f"{block.id}.live"
        shown = message(
            fenced(clip(event.text), "text"),
            title=LIVE_TITLE,
            id=live_id,
            parent_id=block.id,
        )
        for index in range(block.start, len(self.messages)):
            if _meta_id(self.messages[index]) == live_id:
                self.messages[index] = shown
                return
        self.messages.append(shown)

    def _drop_live_output(self, block: _Block) -> None:
        live_id = f"{block.id}.live"
        self.messages[block.start :] = [
            item for item in self.messages[block.start :] if _meta_id(item) != live_id
        ]

    def _keep_live_output(self, block: _Block) -> None:
        live_id = f"{block.id}.live"
        for item in self.messages[block.start :]:
            if _meta_id(item) == live_id:
                item["metadata"]["title"] = STOPPED_OUTPUT_TITLE

    def _on_action_step(self, step: ActionStep) -> None:
        block = self._started_block()
        for _, view in block.subviews.values():
            view._settle("done")
        nested = self._nested_messages(block)
        rendered = render_action_step(step, block.id, self.files, nested)
        rendered += render_approvals(step, block.id)  # what a person answered, if asked
        if self.label:
            rendered[0]["metadata"]["title"] = f"{self.label} · {rendered[0]['metadata']['title']}"
        else:  # a top-level step: the page draws its images only this way (see step_images)
            rendered = lift_step_images(rendered)
        self.messages[block.start :] = rendered
        self.steps += 1
        self.finished.append(step)
        self.usage = self.usage + step.token_usage
        self._block = None
        self._next_step = step.step_number + 1
        if not step.is_final_answer:
            self.open_step()

    def _on_planning_step(self, step: PlanningStep) -> None:
        block = self._started_block()
        self.messages[block.start :] = render_planning_step(step, block.id)
        self.usage = self.usage + step.token_usage
        self._block = None
        self.open_step()

    def _on_final_answer(self, event: FinalAnswerStep) -> None:
        self._drop_unstarted()
        answer = render_final_answer(event.output, self.files)
        if self.label and isinstance(answer["content"], str):
            answer["content"] = f"**{self.label} answered:** {answer['content']}"
        self.messages.append(answer)
        self.answered = True

    def _on_sub_agent_event(self, event: SubAgentEvent) -> None:
        block = self._started_block()
        if event.agent_name not in block.subviews:
            call_id = next(
                (cid for name, cid in reversed(block.calls) if name == event.agent_name),
                block.calls[-1][1] if block.calls else block.id,
            )
            sub = TurnView(
                f"{call_id}.{event.agent_name}", self.files, event.agent_name, self.clock
            )
            block.subviews[event.agent_name] = (call_id, sub)
        block.subviews[event.agent_name][1].apply(event.event)
        self._refresh_nested(block)

    # -- nesting -------------------------------------------------------------------------------

    def _nested_messages(self, block: _Block) -> dict[str, list[Message]]:
        nested: dict[str, list[Message]] = {}
        for call_id, view in block.subviews.values():
            for item in view.messages:
                item = dict(item, metadata=dict(item.get("metadata") or {}))
                item["metadata"].setdefault("parent_id", call_id)
                nested.setdefault(call_id, []).append(item)
        return nested

    def _refresh_nested(self, block: _Block) -> None:
        """Re-place the nested views' messages right after the call they belong under."""
        nested = self._nested_messages(block)
        own = [m for m in self.messages[block.start :] if id(m) not in block.placed]
        region: list[Message] = []
        for item in own:
            region.append(item)
            region += nested.get(_meta_id(item), [])
        block.placed = {id(m) for group in nested.values() for m in group}
        self.messages[block.start :] = region

    def _drop_unstarted(self) -> None:
        block = self._block
        if block is not None and not block.started:
            del self.messages[block.start :]
            self._block = None


def _meta_id(item: Message) -> str:
    return str((item.get("metadata") or {}).get("id") or "")
