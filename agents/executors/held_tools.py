"""Tools whose calls from code wait for a person's answer before they run.

An agent that must have some tool calls approved sends its executor a `HeldTool` in place of
each such tool. Every executor reaches tools on the host (`tool_calls.run_tool_call` for the
sandbox and the remote kernels, a plain call in-process), so the host holds the call there:
it binds and checks the arguments, asks (`hold`), then runs the tool with the arguments it was
given back, or answers the code with the refusal. The waiting is measured apart, so that a
person taking minutes to answer does not count against the code's deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.base import Tool, ToolArgumentError

# (tool name, arguments by name) -> the arguments to run with; raises ToolCallRefused.
Hold = Callable[[str, dict[str, Any]], dict[str, Any]]


class ToolCallRefused(Exception):
    """The person did not let this call run; the code sees this message as the call's error."""


@dataclass(frozen=True)
class HeldCall:
    """A held call, answered: the arguments to run it with, and how long the answer took.

    Args:
        args: Positional arguments (empty for a Tool: its arguments go by name).
        kwargs: Named arguments.
        waited: Seconds spent waiting for the answer.
    """

    args: list[Any]
    kwargs: dict[str, Any]
    waited: float


class HeldTool:
    """A tool (or managed agent) whose every call is held until `hold` answers.

    Args:
        name: The name code calls it by.
        tool: The real tool.
        hold: Asks whether (and with which arguments) the call may run.
    """

    def __init__(self, name: str, tool: Any, hold: Hold):
        self.name, self.tool, self.hold = name, tool, hold
        self.__doc__ = tool.__doc__

    def answer(self, args: list[Any], kwargs: dict[str, Any]) -> HeldCall:
        """Check the call's arguments, ask, and check what comes back.

        Args:
            args: Positional arguments, as the code passed them.
            kwargs: Named arguments.

        Raises:
            ToolArgumentError: The arguments (or the edited ones) do not fit the tool.
            ToolCallRefused: The person skipped the call or stopped the run.
        """
        arguments = bind_arguments(self.tool, args, kwargs)
        started = time.monotonic()
        answered = self.hold(self.name, arguments)
        waited = time.monotonic() - started
        if isinstance(self.tool, Tool):
            self.tool.validate_arguments(answered)
            return HeldCall([], answered, waited)
        named = dict(answered)  # another callable: what was positional stays positional
        return HeldCall(list(named.pop("*args", [])), named, waited)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Hold, then run (the in-process executor calls it as it would the tool)."""
        call = self.answer(list(args), kwargs)
        return self.tool(*call.args, **call.kwargs)


def bind_arguments(tool: Any, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments by name: checked against a Tool's inputs; for another callable,
    named as far as they can be (extra positional ones under "*args").

    Args:
        tool: A Tool, or another callable.
        args: Positional arguments, in the order of the tool's inputs.
        kwargs: Named arguments.

    Raises:
        ToolArgumentError: Too many arguments, one given twice, or (a Tool) not its inputs.
    """
    if not isinstance(tool, Tool):
        return {**({"*args": list(args)} if args else {}), **kwargs}
    names = list(tool.inputs)
    if len(args) > len(names):
        raise ToolArgumentError(
            f"Tool {tool.name} takes {len(names)} arguments, got {len(args)}. " + tool.usage()
        )
    bound = dict(zip(names, args, strict=False))
    for key, value in kwargs.items():
        if key in bound:
            raise ToolArgumentError(f"Tool {tool.name} got argument '{key}' twice.")
        bound[key] = value
    tool.validate_arguments(bound)
    return bound
