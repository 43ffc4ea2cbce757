"""`python_interpreter`: lets a tool-calling agent run Python, in the sandboxed executor."""

from __future__ import annotations

import importlib.util
import logging
from typing import Any

from tools.base import Tool, ToolExecutionError, format_output

logger = logging.getLogger(__name__)


def default_executor_type() -> str:
    """ "sandbox" when the sandboxed executor is available, else "local"."""
    return "sandbox" if importlib.util.find_spec("agents.executors.sandbox") else "local"


class PythonInterpreterTool(Tool):
    """Runs Python code and returns what it printed and the value of its last line.

    Variables persist from one call to the next, like a notebook. The executor (a confined
    worker process by default) starts on first use; call `close()` to stop it.

    Args:
        authorized_imports: Modules the code may import besides the base list.
        executor_type: "sandbox" or "local"; default: the sandbox when available.
        executor_kwargs: Passed to the executor (timeout, read_only_paths, ...).
        timeout_seconds: Seconds one run may take (smolagents' name; the executor's timeout).
    """

    name = "python_interpreter"
    description = (
        "Runs Python code and returns its printed output and the value of its last line. "
        "Variables persist between calls. Only some modules can be imported."
    )
    inputs = {"code": {"type": "string", "description": "The Python code to run."}}
    output_type = "string"

    def __init__(
        self,
        authorized_imports: list[str] | None = None,
        executor_type: str | None = None,
        executor_kwargs: dict[str, Any] | None = None,
        timeout_seconds: float | None = None,
    ):
        super().__init__()
        self.authorized_imports = list(authorized_imports or [])
        self.executor_type = executor_type or default_executor_type()
        self.executor_kwargs = dict(executor_kwargs or {})
        if timeout_seconds is not None:  # smolagents' name for the per-run time limit
            self.executor_kwargs.setdefault("timeout", timeout_seconds)
        self.executor: Any = None
        if self.authorized_imports:
            self.description = (
                f"{self.description} Besides the standard ones, these modules are allowed: "
                f"{', '.join(self.authorized_imports)}."
            )

    def setup(self) -> None:
        from agents.executors import create_executor

        self.executor = create_executor(
            self.executor_type,
            additional_authorized_imports=self.authorized_imports,
            **self.executor_kwargs,
        )
        logger.debug("python_interpreter uses the %s executor", self.executor_type)
        self.is_initialized = True

    def forward(self, code: str) -> str:
        from agents.errors import AgentExecutionError

        if self.executor is None:
            self.setup()
        try:
            result = self.executor(code)
        except AgentExecutionError as error:
            logs = f"\nOutput before the error:\n{error.logs}" if error.logs else ""
            raise ToolExecutionError(f"{error.message}{logs}") from error
        parts = []
        if result.logs:
            parts.append(f"Stdout:\n{result.logs.rstrip()}")
        if result.output is not None:
            parts.append(f"Output: {format_output(result.output, limit=10_000)}")
        return "\n".join(parts) or "The code ran and printed nothing (its last line has no value)."

    def close(self) -> None:
        """Stop the executor (its worker process, for the sandbox)."""
        if self.executor is not None:
            self.executor.close()
            self.executor = None
            self.is_initialized = False
