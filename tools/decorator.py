"""`@tool`: build a `Tool` from a function's type hints and its docstring's `Args:` section."""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from typing import Any

from tools.base import Tool, ToolDefinitionError

_SIMPLE_TYPES: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    tuple: "array",
    dict: "object",
    type(None): "null",
    Any: "any",
}


def tool(function: Callable[..., Any]) -> Tool:
    """Turn a function into a Tool.

    The function needs a type hint on every argument and on its return value, and a Google
    style docstring whose `Args:` section describes every argument.

    Args:
        function: The function to wrap.
    """
    name = function.__name__
    hints = _hints(function)
    description, arg_docs = parse_docstring(inspect.getdoc(function) or "")
    if not description:
        raise ToolDefinitionError(f"@tool {name}: add a docstring that says what the tool does.")
    inputs: dict[str, dict[str, Any]] = {}
    for param in inspect.signature(function).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(f"@tool {name}: *args and **kwargs are not supported.")
        if param.name not in hints:
            raise ToolDefinitionError(f"@tool {name}: add a type hint to argument '{param.name}'.")
        if param.name not in arg_docs:
            raise ToolDefinitionError(
                f"@tool {name}: describe argument '{param.name}' in the docstring's Args: section."
            )
        kind, nullable = json_type(hints[param.name], f"@tool {name}, argument '{param.name}'")
        spec: dict[str, Any] = {"type": kind, "description": arg_docs[param.name]}
        if nullable or param.default is not inspect.Parameter.empty:
            spec["nullable"] = True
        inputs[param.name] = spec
    if "return" not in hints:
        raise ToolDefinitionError(f"@tool {name}: add a return type hint (e.g. -> str).")
    output_type, _ = json_type(hints["return"], f"@tool {name}, return value")
    return _function_tool(function, name, description, inputs, output_type)


class FunctionTool(Tool):
    """The base of every `@tool` tool: `forward` calls the wrapped function."""

    skip_forward_signature_validation = True
    function: Callable[..., Any]  # set on each instance; also read to save the tool's source

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)


def _function_tool(
    function: Callable[..., Any],
    name: str,
    description: str,
    inputs: dict[str, dict[str, Any]],
    output_type: str,
) -> Tool:
    # A class per function, as smolagents does: the tool's data lives on its class.
    tool_class = type(
        f"{name}_tool",
        (FunctionTool,),
        {
            "name": name,
            "description": description,
            "inputs": inputs,
            "output_type": output_type,
            "__qualname__": f"{name}_tool",
        },
    )
    instance = tool_class()
    instance.function = function
    instance.__doc__ = function.__doc__
    return instance


def _hints(function: Callable[..., Any]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(function)
    except Exception:  # unresolved forward references: fall back to the raw annotations
        return dict(getattr(function, "__annotations__", {}))  # why: any callable, maybe none


_NAMED_TYPES = {t.__name__: kind for t, kind in _SIMPLE_TYPES.items()}
_NAMED_TYPES.update({"None": "null", "Any": "any", "List": "array", "Dict": "object"})


def _string_hint_type(hint: str) -> tuple[str, bool] | None:
    """Resolve an annotation left as a string (postponed evaluation, local names)."""
    parts = [p.strip() for p in re.split(r"\|", hint)]
    optional = re.fullmatch(r"(?:typing\.)?Optional\[(.*)\]", hint.strip())
    if optional:
        parts = [optional.group(1).strip(), "None"]
    nullable = "None" in parts and len(parts) > 1
    kinds = {_named_kind(p) for p in parts if p != "None" or len(parts) == 1}
    if None in kinds:
        return None
    return (kinds.pop() if len(kinds) == 1 else "any"), nullable


def _named_kind(name: str) -> str | None:
    base = name.split("[", 1)[0].strip().split(".")[-1]
    if base in _NAMED_TYPES:
        return _NAMED_TYPES[base]
    if "Image" in base:
        return "image"
    if "Audio" in base:
        return "audio"
    return None


def json_type(hint: Any, where: str) -> tuple[str, bool]:
    """Map a Python type hint to a tool type; returns `(type, nullable)`."""
    if isinstance(hint, str):
        resolved = _string_hint_type(hint)
        if resolved is None:
            raise ToolDefinitionError(
                f"{where}: type hint {hint!r} has no tool type; use str, int, ..."
            )
        return resolved
    if hint in _SIMPLE_TYPES:
        return _SIMPLE_TYPES[hint], hint is type(None)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        nullable = len(members) < len(typing.get_args(hint))
        if len(members) == 1:
            return json_type(members[0], where)[0], nullable
        return "any", nullable
    if origin is typing.Literal:
        return json_type(type(typing.get_args(hint)[0]), where)[0], False
    if origin in _SIMPLE_TYPES:
        return _SIMPLE_TYPES[origin], False
    text = getattr(hint, "__name__", str(hint))  # why: typing aliases have no __name__
    if "Image" in text:
        return "image", False
    if "Audio" in text:
        return "audio", False
    raise ToolDefinitionError(f"{where}: type hint {hint!r} has no tool type; use str, int, ...")


_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Returns|Return|Raises|Yields|Example|Examples):\s*$"
)


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {arg: description})."""
    lines = doc.splitlines()
    description: list[str] = []
    args: dict[str, str] = {}
    section = None
    current = None
    for line in lines:
        header = _SECTION.match(line)
        if header:
            section = header.group(1)
            current = None
            continue
        if section is None:
            description.append(line)
        elif section in ("Args", "Arguments", "Parameters"):
            entry = re.match(r"^\s*\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$", line)
            if entry:
                current = entry.group(1)
                args[current] = entry.group(2).strip()
            elif current and line.strip():
                args[current] = (args[current] + " " + line.strip()).strip()
    return "\n".join(description).strip(), args
