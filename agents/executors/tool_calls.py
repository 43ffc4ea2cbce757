"""Host side of a tool call made by sandboxed code: decode, validate, run the real tool, answer.

The arguments come from untrusted code, so they are decoded without pickle (plain data,
images, reprs) and checked against the tool's declared inputs before the tool runs. With
tracing on, each call runs in an `execute_tool {name}` span under the code's span. A call to
a `HeldTool` waits for a person's answer first (`agents.executors.held_tools`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.executors.held_tools import HeldTool, ToolCallRefused, bind_arguments
from agents.executors.values import decode_value, encode_value
from agents.observability.tool_spans import ActiveSpan, traced_tool_call
from tools.base import Tool, ToolArgumentError

MAX_ERROR_CHARS = 4000


def run_tool_call(
    tools: dict[str, Any],
    message: dict[str, Any],
    image: Callable[[bytes], Any] | None = None,
    trace: ActiveSpan | None = None,
    waited: Callable[[float], None] | None = None,
) -> dict[str, Any]:
    """Answer one `call` message from the worker with a `return` message.

    Args:
        tools: Name -> Tool (or any callable, such as a managed agent).
        message: `{"t": "call", "name": ..., "args": [...], "kwargs": {...}}` as encoded.
        image: Decodes images among the arguments (the sandbox passes its step budget's,
            which checks their size before decoding and raises when over the budget).
        trace: The code's span, captured where the code started (`active_span()`); None:
            the call is not traced.
        waited: Told the seconds a held call waited for a person's answer (time that is
            neither the code's nor the tool's).
    """
    name = message.get("name")
    tool = tools.get(name) if isinstance(name, str) else None
    if tool is None:
        return _failure(f"There is no tool named {name!r}. Tools: {', '.join(sorted(tools))}.")
    try:
        args = decode_value(message.get("args", []), image=image)
        kwargs = decode_value(message.get("kwargs", {}), image=image)
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            raise ToolArgumentError(f"Tool {name}: malformed call.")
        if isinstance(tool, HeldTool):
            held = tool.answer(args, kwargs)
            if waited is not None:
                waited(held.waited)
            tool, args, kwargs = tool.tool, held.args, held.kwargs
        value = traced_call(trace, name, tool, args, kwargs)
    except ToolCallRefused as refused:  # the person's words, as they are
        return _failure(str(refused))
    except Exception as error:  # the tool's failure goes back to the code, like any exception
        return _failure(f"{type(error).__name__}: {error}")
    return {"t": "return", "ok": True, "value": encode_value(value, trusted=True)}


def traced_call(
    trace: ActiveSpan | None, name: str, tool: Any, args: list[Any], kwargs: dict[str, Any]
) -> Any:
    """`call_tool`, in an `execute_tool {name}` span under `trace` when it is given.

    Args:
        trace: The code's span (None: just call).
        name: The name the code called the tool by.
        tool: A Tool, or another callable.
        args: Positional arguments.
        kwargs: Named arguments.
    """
    if trace is None:
        return call_tool(tool, args, kwargs)
    arguments = named_arguments(tool, args, kwargs)
    return traced_tool_call(trace, name, lambda: call_tool(tool, args, kwargs), arguments)


def named_arguments(tool: Any, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments by name, as far as the tool's inputs name them (for traces).

    Args:
        tool: A Tool, or another callable.
        args: Positional arguments.
        kwargs: Named arguments.
    """
    if isinstance(tool, HeldTool):
        tool = tool.tool
    names = list(tool.inputs) if isinstance(tool, Tool) else []
    named = dict(zip(names, args, strict=False))
    if len(args) > len(named):
        named["*args"] = list(args[len(named) :])
    return {**named, **kwargs}


def call_tool(tool: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """Validate the arguments against a Tool's inputs, then run it; call other callables as-is.

    Args:
        tool: A Tool, or another callable.
        args: Positional arguments, in the order of the tool's inputs.
        kwargs: Named arguments.
    """
    if not isinstance(tool, Tool):
        return tool(*args, **kwargs)
    return tool(**bind_arguments(tool, args, kwargs))


def _failure(text: str) -> dict[str, Any]:
    if len(text) > MAX_ERROR_CHARS:
        text = text[:MAX_ERROR_CHARS] + " [...]"
    return {"t": "return", "ok": False, "error": text}
