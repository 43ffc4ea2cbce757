"""Approve before it runs, in the chat: the app's approver for its agents.

A turn whose conversation has approval on (`--approve` / `SMOLUI_APPROVE` for the default,
the page's switch per conversation) gets a `ConversationApprover`: each action the policy holds
is kept in the store as a pending approval (`smolui.store.approvals`), shown in the chat, and
the turn waits until a page answers it (`ChatApprovals.answer`) or Stop ends the turn. Any page
of any replica shows the pending action and may answer; exactly one answer wins. An answer to
an action whose turn is gone (the app restarted) resumes that turn from the stored memory
(through the chat handlers' `Resumer`). `--approval-timeout` ends a wait with nothing run;
`--approve-required` keeps every conversation asking.

May import: agents.approval, agents.errors, agents.loop, smolui.render, smolui.sessions,
smolui.store.
"""

from __future__ import annotations

from smolui.approvals.service import Answered, ChatApprovals, TurnApprovals
from smolui.approvals.setting import APPROVE_CHOICES, approve_problem

__all__ = ["APPROVE_CHOICES", "Answered", "ChatApprovals", "TurnApprovals", "approve_problem"]
