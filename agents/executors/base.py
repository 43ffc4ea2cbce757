"""The executor seam: what `CodeAgent` needs from anything that runs model-written code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass
class CodeOutput:
    """What one execution produced.

    Args:
        output: The value of the last expression, or the final answer.
        logs: What the code printed (already truncated by the executor).
        is_final_answer: True when the code called `final_answer(...)`.
        images: PIL images the code returned or displayed, for the UI and the model.
    """

    output: Any
    logs: str
    is_final_answer: bool = False
    images: list[Any] = field(default_factory=list)


@runtime_checkable
class CodeExecutor(Protocol):
    """Runs code with persistent state. Errors in the code raise `AgentExecutionError`."""

    isolation: dict[str, Any]

    def send_variables(self, variables: dict[str, Any]) -> None:
        """Make values available to the code under these names."""

    def send_tools(self, tools: dict[str, Any]) -> None:
        """Make tools (and managed agents) callable from the code by name."""

    def __call__(self, code: str) -> CodeOutput:
        """Run one snippet; state persists between calls."""

    def reset(self) -> None:
        """Forget all variables (a new conversation)."""

    def close(self) -> None:
        """Release the executor's resources."""
