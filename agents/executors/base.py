"""The executor seam: what `CodeAgent` needs from anything that runs model-written code."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
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
    """Runs model-written code with persistent state: everything agents and the UI may call.

    Errors in the code raise `AgentExecutionError`. `LocalPythonExecutor`,
    `SandboxExecutor` and the remote executors implement it.
    """

    @property
    def isolation(self) -> dict[str, Any]:
        """What isolates the code: layers, where it runs, and a "level" in words.

        Reading it starts nothing (an `isinstance` check against this protocol reads it):
        before a worker or kernel starts, the report says so in "level".
        """

    @property
    def running(self) -> bool:
        """True while a live worker process or kernel exists (False in-process: no worker)."""

    def send_variables(self, variables: dict[str, Any]) -> None:
        """Make values available to the code under these names.

        Args:
            variables: Name -> value.
        """

    def send_tools(self, tools: dict[str, Any]) -> None:
        """Make tools (and managed agents) callable from the code by name.

        Args:
            tools: Name -> tool; replaces the tools sent before.
        """

    def __call__(self, code: str) -> CodeOutput:
        """Run one snippet; state persists between calls."""

    def start(self) -> None:
        """Start the worker or kernel now instead of on the first call (no-op in-process)."""

    def checkpoint(self) -> None:
        """Remember which value each variable name has now, for one `rollback`."""

    def rollback(self) -> bool:
        """Give every name its value at the last `checkpoint` and unbind newer names.

        Changes made inside objects stay. Returns False when there was no checkpoint or
        the state holding it was lost (the worker or kernel was replaced).
        """

    def interrupt(self) -> None:
        """Stop the running call (it fails with "Interrupted"); variables are kept."""

    def set_read_paths(self, paths: Sequence[str | Path]) -> None:
        """Let the code read these folders too, instead of those of the last call.

        Args:
            paths: Folders (e.g. a conversation's uploads); empty takes every grant back.
        """

    def reset(self) -> None:
        """Forget all variables (a new conversation)."""

    def close(self) -> None:
        """Release the executor's resources."""


@runtime_checkable
class ReportsOutput(Protocol):
    """An executor that can show what the code prints while it runs (the sandbox does).

    The agent checks for this seam and streams the output to the UI; other executors give
    their output only at the end, in `CodeOutput.logs`.
    """

    def run_reporting(
        self, code: str, on_output: Callable[[str], None] | None = None
    ) -> CodeOutput:
        """Run one snippet like `__call__`, reporting its printed output as it comes.

        Args:
            code: The snippet.
            on_output: Receives the output printed so far (its last lines when long),
                throttled: at most a few times a second, a few KB each time. Called from
                the thread that runs the code; the final output is in the result.
        """
