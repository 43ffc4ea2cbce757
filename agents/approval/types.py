"""The two values that cross the approval seam: what is asked, and the answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from agents.errors import AgentConfigError

Kind = Literal["code", "tool"]
Action = Literal["run", "edit", "skip", "stop"]


@dataclass(frozen=True)
class ApprovalRequest:
    """An action the agent is about to execute, waiting for an answer.

    Args:
        kind: "code" (a CodeAgent's code block) or "tool" (a tool call).
        code: The code block; for a tool called from code, the code that calls it.
        tool_name: The tool called (None for a code block).
        arguments: The tool call's arguments, by name (None for a code block).
        step_number: The step the action belongs to.
        thought: What the model wrote before the action, if anything.
        model_output: The model's message for the step (a `ChatMessage`): an approver that
            keeps the request to answer it later, after a restart, gives it back to
            `agent.resume` so that the model is not asked for that step again.
    """

    kind: Kind
    code: str | None
    tool_name: str | None
    arguments: Any
    step_number: int
    thought: str | None = None
    model_output: Any = None


@dataclass(frozen=True)
class ApprovalDecision:
    """An approver's answer. Build it with `run()`, `edit(...)`, `skip(reason)` or `stop()`.

    Args:
        action: "run", "edit", "skip" or "stop".
        code: The edited code (edit of a code block).
        arguments: The edited arguments (edit of a tool call).
        reason: Why the action was skipped (the model reads it) or the run stopped.
    """

    action: Action
    code: str | None = None
    arguments: Any = None
    reason: str = ""

    @classmethod
    def run(cls) -> ApprovalDecision:
        """Run the action as proposed."""
        return cls("run")

    @classmethod
    def edit(cls, code: str | None = None, arguments: Any = None) -> ApprovalDecision:
        """Run the action changed: new code for a code block, new arguments for a tool call.

        Args:
            code: The code to run instead.
            arguments: The arguments (a dict, by name) to call the tool with instead.

        Raises:
            AgentConfigError: Neither or both given, or code that is not a string.
        """
        if (code is None) == (arguments is None):
            raise AgentConfigError(
                "ApprovalDecision.edit takes code=... (for a code block) or arguments=... "
                "(for a tool call): exactly one of them."
            )
        if code is not None and not isinstance(code, str):
            raise AgentConfigError(f"ApprovalDecision.edit(code=...) takes a string, got {code!r}.")
        return cls("edit", code=code, arguments=arguments)

    @classmethod
    def skip(cls, reason: str = "") -> ApprovalDecision:
        """Do not run the action; the model reads the reason as the observation and goes on.

        Args:
            reason: Why, in words for the model.
        """
        return cls("skip", reason=str(reason))

    @classmethod
    def stop(cls, reason: str = "") -> ApprovalDecision:
        """Run nothing more: the run ends here, as if interrupted.

        Args:
            reason: Why (kept in the step's record and the run's error).
        """
        return cls("stop", reason=str(reason))


# An approver: called with each request, returns the decision (it may take its time).
Approver = Callable[[ApprovalRequest], ApprovalDecision]
