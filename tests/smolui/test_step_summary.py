"""Step summaries, tidy observations, honest footers and font-free icons (no server)."""

from __future__ import annotations

import unicodedata

from agents.errors import AgentExecutionError, AgentMaxStepsError
from agents.memory.steps import ActionStep, FinalAnswerStep, Timing, ToolCall
from agents.models.messages import TokenUsage
from smolui.render.messages import render_action_step, render_notice
from smolui.render.step_summary import (
    clean_observations,
    printed_lines,
    step_summary,
    turn_outcome,
)
from smolui.turns.view import TurnView

CODE = "import math\n\nx = math.sqrt(16)\nprint(x)\nprint(x * 2)"


def step(number: int = 1, error=None, observations: str | None = None, **extra) -> ActionStep:
    return ActionStep(
        step_number=number,
        timing=Timing(100.0, 100.4),
        code_action=CODE,
        tool_calls=[ToolCall("python_interpreter", CODE, f"c{number}")],
        observations=observations
        if observations is not None
        else "Execution logs:\n4.0\n8.0\nLast output from code snippet:\nNone",
        token_usage=TokenUsage(90, 30),
        error=error,
        **extra,
    )


def test_summary_counts_code_lines_and_printed_lines():
    assert step_summary(step()) == "4 lines · printed 2 lines"
    one = step(observations="Execution logs:\nhello\nLast output from code snippet:\n3")
    assert step_summary(one) == "4 lines · printed 1 line"
    assert printed_lines("Execution logs: (none)\nLast output from code snippet:\n42") == 0


def test_summary_says_error_and_step_limit():
    failed = step(error=AgentExecutionError("NameError: y"), observations="")
    assert step_summary(failed) == "4 lines · error"
    limit = ActionStep(step_number=3, error=AgentMaxStepsError("Reached the maximum"))
    assert step_summary(limit) == "step limit"


def test_observations_lose_the_protocol_noise():
    assert clean_observations("Execution logs:\n42\nLast output from code snippet:\nNone") == "42"
    kept = clean_observations("Execution logs:\nhi\nLast output from code snippet:\n[1, 2]")
    assert kept == "hi\nLast output from code snippet:\n[1, 2]"
    assert clean_observations("Execution logs: (none)\nLast output from code snippet:\nNone") == ""


def test_rendered_step_shows_the_summary_once_and_no_doubled_headers():
    parent, *children = render_action_step(step(), "t-1")
    assert parent["metadata"]["log"] == "4 lines · printed 2 lines · 120 tokens · 400 ms"
    logs = next(c for c in children if c["metadata"]["title"] == "Execution logs")
    assert "Execution logs:" not in logs["content"] and "None" not in logs["content"]
    assert "4.0\n8.0" in logs["content"]


def test_outcome_is_honest():
    ok, failed = step(), step(error=AgentExecutionError("boom"))
    limit = ActionStep(step_number=2, error=AgentMaxStepsError("limit"))
    assert turn_outcome("done", [ok], answered=True) == ("✓", "answered")
    assert turn_outcome("done", [failed, limit], answered=True) == ("⚠", "step limit reached")
    assert turn_outcome("done", [failed, failed], answered=True)[1] == "every step failed"
    assert turn_outcome("done", [ok], answered=False)[1] == "no answer"
    assert turn_outcome("stopped", [ok], answered=False) == ("■", "stopped")
    assert turn_outcome("failed", [], answered=False) == ("✕", "failed")


def test_turn_that_hit_the_step_limit_has_no_check_mark():
    view = TurnView("t")
    view.apply(step(1, error=AgentExecutionError("NameError")))
    limit = ActionStep(
        step_number=2,
        error=AgentMaxStepsError("limit"),
        is_final_answer=True,
        model_output="best guess",
        token_usage=TokenUsage(5, 5),
    )
    view.apply(limit)
    view.apply(FinalAnswerStep(output="best guess"))
    view.finish("done", 2.0)
    footer = view.messages[-1]["content"]
    assert "step limit reached" in footer and "✓" not in footer and "2 steps" in footer


# Symbols the common fonts draw (DejaVu Sans here: `fc-list ":charset=2713"`); any other
# symbol, such as the circled "ⓘ", may draw as an empty box in a browser without emoji fonts.
DRAWN_SYMBOLS = set("✓⚠✕■⊕")


def _has_emoji(text: str) -> bool:
    return any(
        ord(ch) > 0x1F000
        or ch == "\ufe0f"
        or (unicodedata.category(ch) == "So" and ch not in DRAWN_SYMBOLS)
        for ch in text
    )


def test_icons_need_no_emoji_font():
    view = TurnView("t")
    view.apply(step(1, error=AgentExecutionError("NameError")))
    view.finish("stopped", 1.0, note="Stopped.")
    shown = [
        str((m.get("metadata") or {}).get("title", "")) + str(m["content"]) for m in view.messages
    ]
    shown.append(render_notice("careful", "⚠️")["content"])
    shown.append(render_notice("saved", "📎")["content"])
    shown.append(render_notice("failed", "❌")["content"])
    shown.append(render_notice("resumed")["content"])  # the information sign: a word
    noted = TurnView("n")
    noted.finish("done", 1.0, note="Nothing to do.")
    shown += [str(m["content"]) for m in noted.messages]
    assert not [text for text in shown if _has_emoji(text)]
    assert render_notice("resumed")["content"] == "Note: resumed"
