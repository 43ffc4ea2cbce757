"""A tool's schema: the types its inputs and output may declare, the checks of a definition's
inputs and of a call's values against them, and how those types read in Python stubs and in
JSON Schema.

`Tool` (`tools.base`) calls these when it validates itself or a call, and when it describes
itself to the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tools.errors import ToolArgumentError, ToolDefinitionError

if TYPE_CHECKING:
    from tools.base import Tool

AUTHORIZED_TYPES = (
    "string",
    "boolean",
    "integer",
    "number",
    "image",
    "audio",
    "array",
    "object",
    "any",
    "null",
)

_PYTHON_CHECKS: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "array": (list, tuple),
    "object": (dict,),
}


def check_input(tool: str, arg: str, spec: Any) -> None:
    """Check one declared input of a tool's definition.

    Args:
        tool: The tool's name, for the message.
        arg: The input's name.
        spec: What `inputs` declares for it.

    Raises:
        ToolDefinitionError: The spec is not a dict with a known `type` and a `description`.
    """
    where = f"Tool {tool}, input '{arg}'"
    if not isinstance(spec, dict) or "type" not in spec or "description" not in spec:
        raise ToolDefinitionError(f"{where}: needs a dict with 'type' and 'description'.")
    types = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
    for kind in types:
        if kind not in AUTHORIZED_TYPES:
            raise ToolDefinitionError(
                f"{where}: type {kind!r} is not one of {', '.join(AUTHORIZED_TYPES)}."
            )


def check_value(tool: Tool, arg: str, spec: dict[str, Any], value: Any) -> None:
    """Check one argument of a call against its declared input.

    Args:
        tool: The tool called (its name and usage go into the message).
        arg: The argument's name.
        spec: What `inputs` declares for it.
        value: What the call passed.

    Raises:
        ToolArgumentError: The value is null where it may not be, or of another type.
    """
    if value is None:
        if spec.get("nullable") or spec["type"] in ("any", "null"):
            return
        raise ToolArgumentError(
            f"Tool {tool.name}: argument '{arg}' may not be null. " + tool.usage()
        )
    types = spec["type"] if isinstance(spec["type"], list) else [spec["type"]]
    for kind in types:
        checks = _PYTHON_CHECKS.get(kind)
        if checks is None:
            return
        if isinstance(value, checks) and not (
            kind in ("integer", "number") and isinstance(value, bool)
        ):
            return
    raise ToolArgumentError(
        f"Tool {tool.name}: argument '{arg}' should be {spec['type']}, "
        f"got {type(value).__name__} {_short(value)}. " + tool.usage()
    )


def bind_arguments(tool: Tool, args: tuple, kwargs: dict[str, Any]) -> dict[str, Any]:
    """A call's positional and named arguments as one dict, by the tool's input names."""
    bound = dict(zip(tool.inputs, args, strict=False))  # extra args are left to forward()
    bound.update(kwargs)
    return bound


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 80 else text[:77] + "..."


def python_type(kind: Any) -> str:
    """A declared type (or a list of them) as a Python annotation, for code stubs."""
    names = {
        "string": "str",
        "boolean": "bool",
        "integer": "int",
        "number": "float",
        "array": "list",
        "object": "dict",
        "image": "PIL.Image.Image",
        "audio": "Audio",
        "any": "Any",
        "null": "None",
    }
    if isinstance(kind, list):
        return " | ".join(names.get(k, k) for k in kind)
    return names.get(kind, kind)


def json_type(kind: Any) -> Any:
    """A declared type (or a list of them) as a JSON Schema type, for native tool calling."""
    mapping = {"image": "string", "audio": "string", "any": "string"}
    if isinstance(kind, list):
        return [mapping.get(k, k) for k in kind]
    return mapping.get(kind, kind)
