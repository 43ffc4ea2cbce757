"""The store's JSON text: non-finite floats kept, in JSON that every database accepts.

Agent memory and chat can hold NaN and ±Infinity (`final_answer(float("nan"))`, the mean of
an empty column, a model's tool call arguments). Python writes them as the bare tokens `NaN`
and `Infinity`, which are not JSON: PostgreSQL refuses the row and SQLite's JSON functions
(the search index's trigger) call it malformed, so the whole save failed. Here each one is
written as a one-key object `{"__smolui_json__": "NaN"}` and read back as the float. A dict
of the conversation's own that has that key is wrapped as `{"__smolui_json__": "dict",
"items": {...}}`, so every value reads back exactly as it was written.

Values without either (nearly all) take the plain `json` path: one C-speed dump or load.
"""

from __future__ import annotations

import json
import math
import numbers
from typing import Any

MARKER = "__smolui_json__"
WRAPPED_DICT = "dict"
NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def dumps(value: Any) -> str:
    """`value` as JSON text with no `NaN`/`Infinity` token (the engine's `json_serializer`).

    Other real numbers (numpy scalars) are written as plain numbers.

    Args:
        value: JSON-ready data, possibly with non-finite floats.

    Raises:
        TypeError: A value JSON cannot hold (as `json.dumps`).
    """
    try:
        text = json.dumps(value, allow_nan=False, default=_number)
    except ValueError:  # a non-finite float somewhere
        text = None
    if text is None or MARKER in text:
        text = json.dumps(encode(value), allow_nan=False, default=_number)
    return text


def loads(text: str | bytes) -> Any:
    """Data from JSON text written by `dumps` (the engine's `json_deserializer`).

    Args:
        text: The JSON text.

    Raises:
        ValueError: It is not JSON.
    """
    value = json.loads(text)
    marked = MARKER in text if isinstance(text, str) else MARKER.encode() in text
    return decode(value) if marked else value


def encode(value: Any) -> Any:
    """`value` with its non-finite floats (and dicts that have the marker key) replaced by
    marker objects; other values are returned as they are.

    Args:
        value: JSON-ready data.
    """
    if isinstance(value, float) or (
        isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)
    ):
        number = float(value)
        return number if math.isfinite(number) else {MARKER: _name(number)}
    if isinstance(value, dict):
        items = {key: encode(item) for key, item in value.items()}
        return {MARKER: WRAPPED_DICT, "items": items} if MARKER in value else items
    if isinstance(value, (list, tuple)):
        return [encode(item) for item in value]
    return value


def decode(value: Any) -> Any:
    """The data `encode` was given: marker objects turned back into floats and dicts.

    Args:
        value: Data read from JSON.
    """
    if isinstance(value, dict):
        tag = value.get(MARKER)
        if isinstance(tag, str) and tag in NON_FINITE and len(value) == 1:
            return NON_FINITE[tag]
        items = value.get("items")
        if tag == WRAPPED_DICT and len(value) == 2 and isinstance(items, dict):
            return {key: decode(item) for key, item in items.items()}
        return {key: decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [decode(item) for item in value]
    return value


def _name(number: float) -> str:
    if math.isnan(number):
        return "NaN"
    return "Infinity" if number > 0 else "-Infinity"


def _number(value: Any) -> Any:
    """What `json` does not know: integers and reals of other types (numpy) as Python ones."""
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


__all__ = ["MARKER", "decode", "dumps", "encode", "loads"]
