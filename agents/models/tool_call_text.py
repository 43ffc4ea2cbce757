"""Tool calls written as text: find the JSON call in a model's answer and parse arguments.

For backends without native tool calling, and for arguments that arrive as JSON strings.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

from agents.errors import AgentParsingError


def parse_json_tool_call(text: str) -> tuple[str, Any]:
    """Find a `{"name": ..., "arguments": ...}` object in free text.

    Raises:
        AgentParsingError: When the text holds no such object (a model mistake).
    """
    for candidate in _json_candidates(text):
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and "name" in data:
            arguments = data.get("arguments", data.get("parameters", {}))
            return str(data["name"]), arguments
    raise AgentParsingError(
        "Your answer held no tool call. Answer with a JSON object like "
        '{"name": "tool_name", "arguments": {"arg": "value"}}. Your answer was:\n' + text[:2000]
    )


def _json_candidates(text: str) -> Iterator[str]:
    fenced = re.findall(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.DOTALL)
    yield from fenced
    starts = [m.start() for m in re.finditer(r"\{", text)]
    for start in starts:
        depth, in_string, escaped = 0, False, False
        for index in range(start, len(text)):
            char = text[index]
            if in_string:
                escaped = (char == "\\") and not escaped
                if char == '"' and not escaped:
                    in_string = False
                continue
            if char == '"':
                in_string = True
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    yield text[start : index + 1]
                    break


def parse_arguments(arguments: Any) -> Any:
    """Tool arguments arrive as a dict or a JSON string; return a dict where possible."""
    if isinstance(arguments, str):
        stripped = arguments.strip()
        if not stripped:
            return {}
        try:
            return json.loads(stripped)
        except json.JSONDecodeError:
            return arguments
    return {} if arguments is None else arguments


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"
