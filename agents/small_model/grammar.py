"""The JSON schema of one tool call, built from an agent's tools, for constrained decoding.

A backend that follows a grammar (llama.cpp turns a JSON schema into one) can then only write
`{"name": "<one of the tools>", "arguments": {...}}` with the arguments that tool takes, which
`agents.models.tool_call_text.parse_json_tool_call` reads back.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any


def tool_call_schema(
    tool_schemas: Sequence[dict[str, Any]], max_string_chars: int | None = None
) -> dict[str, Any]:
    """A JSON schema that matches exactly one call of one of the tools.

    Args:
        tool_schemas: OpenAI-style function schemas (`Tool.to_tool_schema()`), one per tool.
        max_string_chars: Most characters in a string argument, so that a model that rambles
            still closes the call before its token cap; strings then hold at least one
            character (None: no limits).

    Raises:
        ValueError: No tools, or a schema without a function name.
    """
    if not tool_schemas:
        raise ValueError("tool_call_schema needs at least one tool schema.")
    calls = [_one_call(schema, max_string_chars) for schema in tool_schemas]
    return calls[0] if len(calls) == 1 else {"anyOf": calls}


def _one_call(schema: dict[str, Any], max_string_chars: int | None) -> dict[str, Any]:
    function = schema.get("function", schema)
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"A tool schema has no function name: {schema!r}")
    parameters = copy.deepcopy(function.get("parameters") or {"type": "object"})
    parameters.setdefault("type", "object")
    parameters.setdefault("properties", {})
    parameters["additionalProperties"] = False
    for prop in parameters["properties"].values():
        _bound_strings(prop, max_string_chars)
    return {
        "type": "object",
        # "name" before "arguments": the model picks the tool before writing its arguments.
        "properties": {"name": {"const": name}, "arguments": parameters},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


def _bound_strings(prop: dict[str, Any], max_string_chars: int | None) -> None:
    types = prop.get("type")
    is_string = types == "string" or (isinstance(types, list) and "string" in types)
    if max_string_chars is not None and is_string and "enum" not in prop:
        # An empty string is what a tiny model picks when unsure; it answers nothing.
        prop.setdefault("minLength", 1)
        prop.setdefault("maxLength", max_string_chars)
    # Descriptions guide no decoding and only make the grammar text longer.
    prop.pop("description", None)
