"""Approve before it runs: a person in the loop for code and tool calls.

An agent built with `approve=` (a policy, `policy.ApprovalPolicy`) and `approver=` (a callable)
asks before it executes what the policy holds: a CodeAgent's code block, a tool call of a
ToolCallingAgent, a tool called from code. The approver gets an `ApprovalRequest` and answers
with an `ApprovalDecision`: run, run edited, skip (the reason becomes the observation), or stop
the run. `gate.ApprovalGate` is what the loop calls; `console.console_approver` asks on a
terminal. Answers are recorded on the step (`agents.memory.approvals`) and in the traces.

May import: agents.errors, agents.executors, agents.memory, agents.observability, tools.
"""

from __future__ import annotations

from agents.approval.console import ConsoleApprover, console_approver
from agents.approval.policy import ApprovalPolicy
from agents.approval.types import ApprovalDecision, ApprovalRequest, Approver

__all__ = [
    "ApprovalDecision",
    "ApprovalPolicy",
    "ApprovalRequest",
    "Approver",
    "ConsoleApprover",
    "console_approver",
]
