"""Host side of a finished execution: the worker's `result` message as a `CodeOutput`.

The message comes from untrusted code, so values are decoded without pickle and images
are re-read from PNG bytes; anything malformed is dropped or shown as an error value.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from agents.errors import AgentExecutionError
from agents.executors.base import CodeOutput
from agents.executors.sandbox_protocol import ReprValue, decode_value, png_to_image


def result_to_output(result: dict[str, Any]) -> CodeOutput:
    """The worker's `result` message as a `CodeOutput`; a failed run raises `AgentExecutionError`."""
    logs = str(result.get("logs") or "")
    if not result.get("ok"):
        raise AgentExecutionError(f"Code execution failed: {result.get('error')}", logs=logs)
    try:
        output = decode_value(result.get("output"))
    except (RecursionError, ValueError, TypeError) as error:  # only a hostile worker gets here
        output = ReprValue(f"<output could not be decoded: {type(error).__name__}>", "error")
    images = [
        v for v in (output if isinstance(output, (list, tuple)) else [output]) if _is_image(v)
    ]
    encoded = result.get("images")
    for data in encoded if isinstance(encoded, list) else []:
        try:
            images.append(png_to_image(base64.b64decode(data, validate=True)))
        except (TypeError, ValueError, binascii.Error):
            continue
    return CodeOutput(
        output=output, logs=logs, is_final_answer=bool(result.get("is_final")), images=images
    )


def _is_image(value: Any) -> bool:
    return type(value).__module__.startswith("PIL.")
