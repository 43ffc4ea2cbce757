"""Host side of a finished execution: the worker's `result` message as a `CodeOutput`.

The message comes from untrusted code, so values are decoded without pickle, texts are cut
and images counted by the host (PNG dimensions read before decoding). A malformed value
fails the step; an image that cannot be shown is left out with a note in the logs, never
kept as a stand-in string.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from agents.errors import AgentExecutionError
from agents.executors.base import CodeOutput
from agents.executors.frames import frame_from_tree
from agents.executors.previews import table_from_tree
from agents.executors.sandbox.budget import BudgetExceeded, BudgetLimits, StepBudget, cut_text
from agents.executors.values import TAG, ReprValue, decode_value

_MAX_NOTES = 40  # notes about refused images (twice the default image cap)


def result_to_output(result: dict[str, Any], budget: StepBudget | None = None) -> CodeOutput:
    """The worker's `result` message as a `CodeOutput`; a failed run raises `AgentExecutionError`.

    Args:
        result: The message, as received (untrusted).
        budget: The host's count for this execution (texts cut, images counted and checked
            before decoding); default: the default limits.
    """
    budget = budget or StepBudget(BudgetLimits())
    limits = budget.limits
    # The worker keeps the head and a quarter-size tail of long output, with a note.
    log_cap = limits.max_log_chars + limits.max_log_chars // 4 + 200
    logs = cut_text(result.get("logs"), log_cap, "printed output")
    if not result.get("ok"):
        error = cut_text(result.get("error"), limits.max_error_chars, "error")
        raise AgentExecutionError(f"Code execution failed: {error}", logs=logs)
    try:
        output = table_from_tree(result.get("output"))  # a DataFrame/Series, as data
        if output is not None and result.get("is_final"):  # the answer: a DataFrame again
            frame = frame_from_tree(result.get("output"), limits.max_output_chars)
            output = output if frame is None else frame
        if output is None:
            _check_value_size(result.get("output"), limits.max_output_chars)
            output = decode_value(result.get("output"), image=budget.image)
    except BudgetExceeded as error:
        raise AgentExecutionError(f"The step's value was refused: {error}.", logs=logs) from None
    except (RecursionError, ValueError, TypeError) as error:  # only a hostile worker gets here
        raise AgentExecutionError(
            f"The sandbox sent a malformed result ({type(error).__name__}).", logs=logs
        ) from None
    if isinstance(output, str):  # room for the worker's own note when it cut the text
        text = cut_text(output, limits.max_output_chars + 200, "output")
        if len(text) != len(output):
            output = ReprValue(text, output.type_name) if isinstance(output, ReprValue) else text
    images = [
        v for v in (output if isinstance(output, (list, tuple)) else [output]) if _is_image(v)
    ]
    notes = []
    encoded = result.get("images")
    for data in encoded if isinstance(encoded, list) else []:
        try:
            images.append(budget.image(base64.b64decode(data, validate=True)))
        except (TypeError, ValueError, binascii.Error) as error:  # BudgetExceeded included
            notes.append(f"[an image was not shown: {error}]")
    if len(notes) > _MAX_NOTES:  # one per image sent: the count is the worker's to choose
        notes[_MAX_NOTES:] = [f"[... {len(notes) - _MAX_NOTES} more images not shown]"]
    if notes:
        logs = logs + "\n".join(notes) + "\n"
    return CodeOutput(
        output=output, logs=logs, is_final_answer=bool(result.get("is_final")), images=images
    )


def _check_value_size(tree: Any, limit: int) -> None:
    """Refuse a value (not text: cut later; not a figure: an image, budgeted) whose encoded
    size is over `limit` characters. The worker turns larger ones into cut text, but the
    code can change its cap: the host counts again."""
    if isinstance(tree, str) or (isinstance(tree, dict) and tree.get(TAG) == "image"):
        return
    size = len(json.dumps(tree, separators=(",", ":")))
    if size > limit:
        raise BudgetExceeded(f"a value of {size:,} characters (the limit is {limit:,})")


def _is_image(value: Any) -> bool:
    return type(value).__module__.startswith("PIL.")
