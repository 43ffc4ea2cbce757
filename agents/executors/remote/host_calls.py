"""What code in a remote kernel reaches on the host: its tools, and `final_answer`.

The kernel's tool stubs (see `kernel_bridge`) send each call as an `input_request`;
`ExecutionRun` hands the decoded request to `HostCalls.serve`, which validates the
arguments, runs the real tool here and returns the reply that goes back to the kernel.
`final_answer(...)` is such a call too: its value is kept until the step's output is built.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.executors.tool_calls import run_tool_call
from agents.executors.values import decode_value
from agents.observability.tool_spans import active_span


class HostCalls:
    """Serves one executor's calls from its kernel.

    Args:
        interrupt_kernel: Interrupts the running code; called when a Stop came while a
            tool was running (the kernel cannot be interrupted inside `input()`).
    """

    def __init__(self, interrupt_kernel: Callable[[], None]):
        self.interrupt_kernel = interrupt_kernel
        self.tools: dict[str, Any] = {}
        self.in_tool = False
        self.interrupt_pending = False
        self._final: tuple[bool, Any] = (False, None)
        self._waited = 0.0  # seconds held calls waited for a person's answer, not yet taken

    def set_tools(self, tools: dict[str, Any]) -> None:
        """The tools code may call (`final_answer` is always served here).

        Args:
            tools: Name -> tool.
        """
        self.tools = {name: tool for name, tool in tools.items() if name != "final_answer"}

    def begin(self) -> None:
        """A new execution: no final answer and no Stop yet."""
        self.interrupt_pending = False
        self._final = (False, None)

    def take_final(self) -> tuple[bool, Any]:
        """Whether the code gave a final answer, and its value (forgotten afterwards)."""
        final, self._final = self._final, (False, None)
        return final

    def take_waited(self) -> float:
        """Seconds held calls waited for a person's answer since the last time asked: time
        that counts against neither the code's deadline nor the tools' allowance."""
        waited, self._waited = self._waited, 0.0
        return waited

    def serve(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answer one call from the kernel.

        Args:
            request: The decoded call: name, encoded args and kwargs.
        """
        if request.get("name") == "final_answer":
            try:
                args = decode_value(request.get("args", []))
            except (RecursionError, ValueError, TypeError):
                args = [None]
            self._final = (True, args[0] if isinstance(args, list) and args else None)
            return {"ok": True, "value": None}
        self.in_tool = True
        try:
            # Served on the thread running the code, so the code's span is the active one.
            reply = run_tool_call(self.tools, request, trace=active_span(), waited=self._add_waited)
        finally:
            self.in_tool = False
        if self.interrupt_pending:
            self.interrupt_kernel()
        return reply

    def _add_waited(self, seconds: float) -> None:
        self._waited += seconds
