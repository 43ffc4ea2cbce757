"""`ApprovalGate`: what the loop calls before it executes an action, when a policy asks.

An agent owns one gate. Its three entry points match the three kinds of action:
`review_code` (a CodeAgent's code block), `review_calls` (a ToolCallingAgent's tool calls, each
asked in turn before any runs) and `held_tools` + `code_running` (tools called from code: the
executor holds them on the host and the gate answers from there, on whatever thread serves the
call). With the policy off every entry point returns what it was given, asking nothing.

A skip becomes the observation the model reads; a stop raises `AgentStoppedError`, which ends
the run like an interrupt. An approver that raises or answers with something other than an
`ApprovalDecision` is a developer mistake: `AgentConfigError`, ending the run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from agents.approval.policy import ApprovalPolicy
from agents.approval.types import ApprovalDecision, ApprovalRequest, Approver
from agents.errors import AgentConfigError, AgentInterruptedError, AgentStoppedError
from agents.executors.held_tools import HeldTool, ToolCallRefused
from agents.memory.approvals import ApprovalRecord, edited_code_note
from agents.memory.steps import ActionStep, ToolCall


@dataclass(frozen=True)
class CodeReview:
    """The answer about a code block.

    Args:
        code: The code to run (edited or not); None when it was skipped.
        note: For the model: why nothing ran (skip), or that the code was edited.
    """

    code: str | None
    note: str | None = None


@dataclass(frozen=True)
class SkippedCall:
    """A tool call the person skipped: it does not run, `observation` stands for its result."""

    call: ToolCall
    observation: str


@dataclass
class _CodeRun:
    """The code running now, for requests about the tools it calls."""

    step: ActionStep
    code: str
    thought: str | None
    interrupt: Callable[[], None]
    halt: BaseException | None = None


class ApprovalGate:
    """Asks the approver about the actions the policy holds, and records the answers.

    Args:
        policy: What is held.
        approver: Called with each `ApprovalRequest`; returns an `ApprovalDecision`.
        tracing: The agent's `AgentTracing` (answers become span events).
        interrupted: True once the run was interrupted (an answer given after that runs
            nothing).
    """

    def __init__(
        self,
        policy: ApprovalPolicy,
        approver: Approver | None,
        tracing: Any,
        interrupted: Callable[[], bool],
    ):
        if policy.active and approver is None:
            raise AgentConfigError(
                "approve= holds actions for approval but no approver= was given: pass "
                "approver=agents.console_approver to ask on this terminal, or a function "
                "taking an ApprovalRequest and returning an ApprovalDecision."
            )
        if approver is not None and not callable(approver):
            raise AgentConfigError(f"approver= must be a callable, got {approver!r}.")
        self.policy, self.approver = policy, approver
        self.tracing, self.interrupted = tracing, interrupted
        self._asking = threading.Lock()  # one question at a time, whatever thread asks
        self._recording = threading.Lock()
        self._code_run: _CodeRun | None = None
        # Called when the run is interrupted, so an approver waiting on a person wakes at once.
        self.on_interrupt: Callable[[], None] | None = None

    def interrupted_now(self) -> None:
        """The run was just interrupted: wake an approver that waits (`on_interrupt`)."""
        wake = self.on_interrupt
        if wake is not None:
            wake()

    # -- a code block ------------------------------------------------------------------

    def review_code(self, step: ActionStep, code: str, thought: str | None) -> CodeReview:
        """Ask about a code block before it runs (when the policy holds code).

        Args:
            step: The step it belongs to (the answer is recorded there).
            code: The code the model wrote.
            thought: What the model wrote before it.

        Raises:
            AgentStoppedError: The person stopped the run.
        """
        if not self.policy.code:
            return CodeReview(code)
        request = ApprovalRequest("code", code, None, None, step.step_number, thought)
        decision = self._answer(step, request)
        if decision.action == "skip":
            return CodeReview(None, _skipped("your code", decision.reason))
        if decision.action == "edit":
            return CodeReview(decision.code, edited_code_note(decision.code))
        return CodeReview(code)

    # -- a ToolCallingAgent's calls ----------------------------------------------------

    def review_calls(
        self, step: ActionStep, calls: list[ToolCall], tools: dict[str, Any], thought: str | None
    ) -> list[ToolCall | SkippedCall]:
        """Ask about each held call in turn, before any of them runs.

        Args:
            step: The step they belong to.
            calls: The model's calls.
            tools: The agent's tools and managed agents, by name.
            thought: What the model wrote with the calls.

        Returns:
            Each call as it will run (edited arguments in place), or a `SkippedCall`.

        Raises:
            AgentStoppedError: The person stopped the run (none of the calls runs).
        """
        if not self.policy.active:
            return list(calls)
        reviewed: list[ToolCall | SkippedCall] = []
        for call in calls:
            tool = tools.get(call.name)
            if tool is None or not self.policy.holds_tool(call.name, tool):
                reviewed.append(call)
                continue
            request = ApprovalRequest(
                "tool", None, call.name, call.arguments, step.step_number, thought
            )
            decision = self._answer(step, request)
            if decision.action == "skip":
                text = _skipped(f"this call to {call.name}", decision.reason)
                reviewed.append(SkippedCall(call, text))
            elif decision.action == "edit":
                reviewed.append(ToolCall(call.name, decision.arguments, call.id))
            else:
                reviewed.append(call)
        return reviewed

    # -- tools called from code --------------------------------------------------------

    def held_tools(self, tools: dict[str, Any]) -> dict[str, Any]:
        """The tools to send an executor: those the policy holds wrapped in a `HeldTool`.

        Args:
            tools: The agent's tools and managed agents, by name.
        """
        if not self.policy.active:
            return tools
        return {
            name: HeldTool(name, tool, self._hold) if self.policy.holds_tool(name, tool) else tool
            for name, tool in tools.items()
        }

    @contextmanager
    def code_running(
        self, step: ActionStep, code: str, thought: str | None, interrupt: Callable[[], None]
    ) -> Iterator[None]:
        """The block that runs code: tools it calls are asked about as part of `step`.

        A stop (or an approver's mistake) answered from inside refuses that call and every
        later one, interrupts the code, and is raised when the block ends.

        Args:
            step: The step running the code.
            code: The code.
            thought: What the model wrote before it.
            interrupt: Stops the running code (the executor's `interrupt`).
        """
        run = self._code_run = _CodeRun(step, code, thought, interrupt)
        try:
            yield
        except Exception as error:  # e.g. the code failed on the refusal, or was interrupted
            if run.halt is None:
                raise
            raise run.halt from error
        finally:
            self._code_run = None
        if run.halt is not None:
            raise run.halt

    def _hold(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Answer a held call from code: the arguments to run with, or `ToolCallRefused`."""
        run = self._code_run
        if run is None:
            raise ToolCallRefused(f"{name} needs approval, and no step is running to ask in.")
        if run.halt is not None:
            raise ToolCallRefused(f"The run was stopped; this call to {name} did not run.")
        request = ApprovalRequest(
            "tool", run.code, name, arguments, run.step.step_number, run.thought
        )
        try:
            decision = self._answer(run.step, request)
        except (AgentInterruptedError, AgentConfigError) as halt:
            run.halt = halt
            run.interrupt()
            raise ToolCallRefused(
                f"The run was stopped; this call to {name} did not run."
            ) from None
        if decision.action == "skip":
            raise ToolCallRefused(_skipped(f"this call to {name}", decision.reason))
        if decision.action == "edit":
            return decision.arguments
        return arguments

    # -- asking and recording ----------------------------------------------------------

    def _answer(self, step: ActionStep, request: ApprovalRequest) -> ApprovalDecision:
        """Ask, check the answer, record it; raise on a stop."""
        request = replace(request, model_output=step.model_output_message)
        started = time.monotonic()
        with self._asking:
            decision = self._ask(request)
        if decision.action != "stop" and self.interrupted():
            decision = ApprovalDecision.stop("The run was interrupted while it waited.")
        proposed = request.code if request.kind == "code" else request.arguments
        ran = {
            "run": proposed,
            "edit": decision.code if request.kind == "code" else decision.arguments,
        }.get(decision.action)
        record = ApprovalRecord(
            request.kind,
            decision.action,
            proposed,
            ran,
            request.tool_name,
            decision.reason or None,
            time.monotonic() - started,
        )
        with self._recording:
            step.approvals = [*(step.approvals or []), record]
        self.tracing.approval(record, step.step_number)
        if decision.action == "stop":
            what = "code" if request.kind == "code" else f"call to {request.tool_name}"
            if decision.reason:  # e.g. an app's "no answer in time": why, as it was given
                raise AgentStoppedError(
                    f"Stopped at step {request.step_number} before the {what} ran: "
                    f"{decision.reason}"
                )
            raise AgentStoppedError(
                f"Stopped at step {request.step_number}: the person reviewing the {what} "
                "stopped the run."
            )
        return decision

    def _ask(self, request: ApprovalRequest) -> ApprovalDecision:
        """The approver's answer, checked (a wrong one is the developer's mistake)."""
        # the user's callable: a function has a name, a callable object may not
        name = getattr(self.approver, "__name__", type(self.approver).__name__)
        try:
            decision = self.approver(request)  # type: ignore[misc]
        except Exception as error:
            raise AgentConfigError(
                f"The approver {name} raised {type(error).__name__}: {error}. An approver "
                "answers every request with an ApprovalDecision instead of raising."
            ) from error
        if not isinstance(decision, ApprovalDecision):
            raise AgentConfigError(
                f"The approver {name} returned {decision!r}; return "
                "agents.ApprovalDecision.run(), .edit(code=... or arguments=...), "
                ".skip(reason) or .stop()."
            )
        if decision.action == "edit":
            _check_edit(decision, request)
        return decision


def _check_edit(decision: ApprovalDecision, request: ApprovalRequest) -> None:
    if request.kind == "code" and decision.code is None:
        raise AgentConfigError(
            "The approver edited a code block with arguments=...; use "
            "ApprovalDecision.edit(code=...)."
        )
    if request.kind == "tool" and not isinstance(decision.arguments, dict):
        raise AgentConfigError(
            f"The approver edited a call to {request.tool_name} without arguments=... as a "
            f"dict (got {decision.arguments!r}); use ApprovalDecision.edit(arguments={{...}})."
        )


def _skipped(what: str, reason: str) -> str:
    why = reason.strip() or "none given"
    return f"Not run: the person reviewing {what} skipped it. Their reason: {why}"
