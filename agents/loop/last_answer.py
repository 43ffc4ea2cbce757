"""The answer of a run whose steps ran out: never the text of a step.

When `max_steps` runs out the agent asks the model once more for an answer. A model used to
answering in code (and any small model, whose last reply is written like a step) often
replies with a thought and a code block (or a JSON tool call) rather than an answer. Such a
reply is not an answer: the value of a `final_answer(<literal>)` (or of a JSON call of
`final_answer`) in it is, else the one clear value the run's steps produced (what a step
returned or printed), else a plain sentence that no answer was found.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

from agents.errors import AgentParsingError
from agents.loop.repair import strip_note
from agents.memory.steps import ActionStep, MemoryStep, TaskStep
from agents.models.tool_call_text import parse_json_tool_call

_FINAL_ANSWER_CALL = re.compile(r"\bfinal_answer\((?:[^()\n]|\([^()\n]*\))*\)")
# What marks a reply as a step: a thought, a code block (any common marker) or a code call.
_STEP_MARKS = re.compile(
    r"^\s*Thought:|```|<code>|</code>|<end_code>|\bfinal_answer\(|^\s*print\(",
    re.IGNORECASE | re.MULTILINE,
)
_LOGS_HEADER = "Execution logs:\n"
_VALUE_HEADER = "\nLast output from code snippet:"
_MAX_VALUE_CHARS = 200
NO_ANSWER = "No answer was found in {steps} step(s): the model did not give one."


def answer_value(text: str) -> Any:
    """The answer in a last reply: the value of a `final_answer(<literal>)` written in it
    (a model used to answering in code often does), else the text itself.

    Args:
        text: The model's reply.
    """
    for match in _FINAL_ANSWER_CALL.finditer(text):
        try:
            call = ast.parse(match.group(0).strip(), mode="eval").body
            return ast.literal_eval(call.args[0])
        except (SyntaxError, ValueError, TypeError, IndexError, AttributeError):
            continue
    return text


def is_step_text(text: str) -> bool:
    """Whether a reply is written like a step (a thought or code) rather than an answer.

    Args:
        text: The model's reply.
    """
    return bool(_STEP_MARKS.search(text))


def answer_after_steps(text: str, steps: Sequence[MemoryStep]) -> Any:
    """The answer of a run whose steps ran out, given the model's last reply.

    Args:
        text: The model's last reply (asked for the final answer).
        steps: The agent's memory steps; only the current run's (after its last task) count.
    """
    value = answer_value(text)
    if value is not text and value is not None:
        return value
    call = _tool_call(text)
    if call is not None and call[0] == "final_answer" and isinstance(call[1], dict):
        answer = call[1].get("answer")
        if answer is not None:
            return answer
    if call is None and text.strip() and not is_step_text(text):
        return text
    run = current_run(steps)
    clear = last_clear_value(run)
    return clear if clear is not None else NO_ANSWER.format(steps=len(run))


def _tool_call(text: str) -> tuple[str, Any] | None:
    """The (name, arguments) of a JSON tool call written in the reply, or None."""
    if '"arguments"' not in text and '"parameters"' not in text:
        return None
    try:
        return parse_json_tool_call(text)
    except AgentParsingError:
        return None


def current_run(steps: Sequence[MemoryStep]) -> list[ActionStep]:
    """The action steps after the last task.

    Args:
        steps: The agent's memory steps, oldest first.
    """
    run: list[ActionStep] = []
    for step in steps:
        if isinstance(step, TaskStep):
            run = []
        elif isinstance(step, ActionStep):
            run.append(step)
    return run


def last_clear_value(steps: Sequence[ActionStep]) -> Any:
    """The value the newest step that ran without error gave, if it is one clear value.

    Clear: what its code returned (a number, text or truth value), else what it printed when
    that is one short line. Steps that failed or gave nothing at all are passed over; a step
    that printed something unclear (several lines, a long text) stops the search, since an
    older value answers an older attempt. None when there is no clear value.

    Args:
        steps: Action steps, oldest first.
    """
    for step in reversed(steps):
        if step.error is not None or step.is_final_answer:
            continue
        output = step.action_output
        if isinstance(output, (int, float, str)) and str(output).strip():
            return output
        lines = _printed_lines(step.observations or "")
        if lines:
            return lines[0] if len(lines) == 1 and len(lines[0]) <= _MAX_VALUE_CHARS else None
    return None


def _printed_lines(observations: str) -> list[str]:
    """The non-empty lines a code step printed."""
    text = strip_note(observations)
    if not text.startswith(_LOGS_HEADER):
        return []
    logs = text.removeprefix(_LOGS_HEADER).split(_VALUE_HEADER, 1)[0]
    return [line.strip() for line in logs.splitlines() if line.strip()]
