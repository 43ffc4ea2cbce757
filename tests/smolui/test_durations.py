"""Every duration on the page is written one way: `20 ms`, `1.7 s`, `12 s`, `2 min 5 s`."""

from __future__ import annotations

import math

import pytest

from agents.memory.steps import ActionStep, PlanningStep, ToolCall
from agents.models.messages import ChatMessageStreamDelta, TokenUsage
from agents.observability.monitoring import Timing
from smolui.conversations.transcripts import sanitize_messages
from smolui.render.durations import format_duration, plain_title, running_title
from smolui.render.export import to_markdown
from smolui.render.messages import render_action_step, render_footer, render_planning_step
from smolui.turns.view import TurnView


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.0, "<1 ms"),
        (0.0004, "<1 ms"),
        (0.02, "20 ms"),
        (0.4, "400 ms"),
        (0.9994, "999 ms"),
        (0.9996, "1.0 s"),
        (1.74, "1.7 s"),
        (9.94, "9.9 s"),
        (9.96, "10 s"),
        (59.4, "59 s"),
        (60.0, "1 min"),
        (125.2, "2 min 5 s"),
        (-3.0, "<1 ms"),
    ],
)
def test_durations_are_written_one_way(seconds, text):
    assert format_duration(seconds) == text


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_duration_that_is_not_a_number_is_refused(bad):
    with pytest.raises(ValueError, match="finite number of seconds"):
        format_duration(bad)


def test_a_fast_turn_says_milliseconds_not_zero_seconds():
    footer = render_footer(1, TokenUsage(10, 5), 0.02)["content"]
    assert footer.endswith("· 20 ms</sub>") and "0.0 s" not in footer


def test_step_and_plan_lines_carry_the_same_time_format():
    step = ActionStep(step_number=1, timing=Timing(start_time=10.0, end_time=10.02))
    step.token_usage = TokenUsage(100, 20)
    parent = render_action_step(step, "s")[0]["metadata"]
    assert parent["log"].endswith("120 tokens · 20 ms") and "duration" not in parent
    plan = PlanningStep(
        model_input_messages=[],
        model_output_message=None,
        plan="1. add",
        timing=Timing(start_time=0.0, end_time=1.74),
        token_usage=None,
    )
    assert render_planning_step(plan, "p")[0]["metadata"]["log"] == "1.7 s"


def test_chats_saved_with_gradio_durations_show_the_same_format():
    saved = [
        {
            "role": "assistant",
            "content": "",
            "metadata": {"title": "Step 1", "duration": 0.02, "log": "9 tokens"},
        }
    ]
    shown = sanitize_messages(saved, [])[0]["metadata"]
    assert shown == {"title": "Step 1", "log": "9 tokens · 20 ms"}
    assert "<summary>Step 1 · 20 ms · 9 tokens</summary>" in to_markdown(saved)


def test_a_running_title_carries_when_the_step_began_and_reads_without_it():
    title = running_title("Step 2 · thinking…", 1764221859.25)
    assert '<span class="step-clock since-1764221859250"></span>' in title
    assert plain_title(title) == "Step 2 · thinking…"
    assert plain_title("Step 2 · ran code") == "Step 2 · ran code"
    for bad in (math.nan, math.inf, -1.0):
        with pytest.raises(ValueError, match="seconds since the epoch"):
            running_title("Step 1", bad)


def test_a_step_keeps_its_start_while_its_title_changes_and_drops_it_when_done():
    """The start comes from the server's clock when the step's block opens, and stays the
    same through the step's updates: a page that reloads reads the same start."""
    now = [1000.0]
    view = TurnView("t", clock=lambda: now[0])
    started = "since-1000000"
    assert started in view.messages[0]["metadata"]["title"]
    now[0] = 1042.0  # later events of the same step do not move its start
    view.apply(ChatMessageStreamDelta(content="Thought: add."))
    view.apply(ToolCall("python_interpreter", "print(1)", "call_1"))
    title = view.messages[0]["metadata"]["title"]
    assert started in title and plain_title(title) == "Step 1 · running code…"
    view.apply(ActionStep(step_number=1, timing=Timing(start_time=1000.0, end_time=1042.0)))
    assert "step-clock" not in view.messages[0]["metadata"]["title"]
    assert "since-1042000" in view.messages[-1]["metadata"]["title"], "the next step's start"
    view.finish("stopped", 42.0)
    assert not any("step-clock" in str(m.get("metadata")) for m in view.messages)
