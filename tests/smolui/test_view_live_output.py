"""The running step's printed output, shown live (issue 31): `TurnView` puts the output so far
under the running step, updates it in place, and the finished step's observation replaces it;
a stopped step keeps what it had shown, named as output from before the stop."""

from __future__ import annotations

from agents.events import CodeOutputSoFar, SubAgentEvent
from agents.memory.steps import ActionStep, Timing, ToolCall
from smolui.render.durations import plain_title
from smolui.turns.view import STOPPED_OUTPUT_TITLE, TurnView

CODE = "for i in range(3):\n    print('part', i)"


def meta(message: dict) -> dict:
    return message.get("metadata") or {}


def titled(view: TurnView, title: str) -> list[dict]:
    return [m for m in view.messages if meta(m).get("title") == title]


def running(view: TurnView) -> None:
    view.apply(ToolCall("python_interpreter", CODE, "call_1"))


def test_the_output_so_far_shows_under_the_running_step_and_updates_in_place():
    view = TurnView("t")
    running(view)
    view.apply(CodeOutputSoFar("part 0\n"))
    view.apply(CodeOutputSoFar("part 0\npart 1\n"))
    [live] = titled(view, "Output so far")
    assert meta(live)["parent_id"] == "t-1"
    assert "part 0\npart 1" in live["content"] and live["content"].startswith("```text")
    assert view.messages[-1] is live, "below the code"
    assert plain_title(meta(view.messages[0])["title"]) == "Step 1 · running code…"


def test_the_finished_step_replaces_the_output_so_far():
    view = TurnView("t")
    running(view)
    view.apply(CodeOutputSoFar("part 0\n"))
    view.apply(
        ActionStep(
            step_number=1,
            timing=Timing(0.0, 1.0),
            code_action=CODE,
            tool_calls=[ToolCall("python_interpreter", CODE, "call_1")],
            observations="Execution logs:\npart 0\npart 1\npart 2\n",
        )
    )
    assert titled(view, "Output so far") == []
    assert "part 2" in str([m["content"] for m in view.messages])


def test_a_stopped_step_keeps_the_output_it_had_shown():
    view = TurnView("t")
    running(view)
    view.apply(CodeOutputSoFar("part 0\npart 1\n"))
    view.finish("stopped", 1.0, note="Stopped.")
    assert titled(view, "Output so far") == []
    [kept] = titled(view, STOPPED_OUTPUT_TITLE)
    assert "part 0\npart 1" in kept["content"] and meta(kept)["parent_id"] == "t-1"
    assert meta(view.messages[0])["title"] == "Step 1 · stopped"
    assert CODE in "\n".join(str(m["content"]) for m in view.messages), "the code stays too"


def test_a_failed_turn_keeps_no_live_copy():
    view = TurnView("t")
    running(view)
    view.apply(CodeOutputSoFar("part 0\n"))
    view.finish("failed", 1.0, note="It broke.")
    assert titled(view, "Output so far") == [] and titled(view, STOPPED_OUTPUT_TITLE) == []


def test_a_managed_agents_output_so_far_nests_under_its_call():
    view = TurnView("t")
    view.apply(ToolCall("python_interpreter", "researcher(task='look')", "call_1"))
    view.apply(SubAgentEvent("researcher", ToolCall("python_interpreter", CODE, "c")))
    view.apply(SubAgentEvent("researcher", CodeOutputSoFar("part 0\n")))
    [live] = titled(view, "Output so far")
    assert meta(live)["parent_id"].startswith("t-1.c0.researcher")
