"""`ConversationApprover`: the approver a conversation's agent gets while approval is on.

Each request becomes a pending approval in the store, shown in the chat; the agent's thread
then waits (no timeout: the person may take their time) until a page answers it, or Stop
ends the turn. The answer, read from the store, becomes the `ApprovalDecision`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agents.approval import ApprovalDecision, ApprovalRequest
from smolui.approvals.waiting import POLL_S, AnswerBell, TurnApprovals
from smolui.render.approval import render_pending_approval

if TYPE_CHECKING:  # the store (SQLAlchemy) loads on the first approval, not with the app
    from smolui.store.approvals import ApprovalStore, StoredApproval

logger = logging.getLogger(__name__)

NOT_KEPT = "the approval request could not be kept (the database is unreachable)"
STOPPED = "Stopped while the action waited for approval."


def decision_of(answer: dict[str, Any] | None) -> ApprovalDecision:
    """The `ApprovalDecision` an answer kept in the store stands for.

    Args:
        answer: The stored decision (`action`, `code`, `arguments`, `reason`); None: stop.
    """
    answer = answer or {"action": "stop", "reason": STOPPED}
    action, reason = answer.get("action"), str(answer.get("reason") or "")
    if action == "run":
        return ApprovalDecision.run()
    if action == "edit" and answer.get("code") is not None:
        return ApprovalDecision.edit(code=str(answer["code"]))
    if action == "edit":
        return ApprovalDecision.edit(arguments=answer.get("arguments"))
    if action == "skip":
        return ApprovalDecision.skip(reason)
    return ApprovalDecision.stop(reason)


class ConversationApprover:
    """Asks the person through the chat; one per turn with approval on.

    Args:
        store: Where pending approvals are kept.
        conversation_id: The conversation whose turn asks.
        shown: The turn's chat (the pending action is shown under it).
        bell: Rung when a page of this process answers.
        stopped: True once the turn was stopped (nothing more may run).
    """

    def __init__(
        self,
        store: ApprovalStore,
        conversation_id: str,
        shown: TurnApprovals,
        bell: AnswerBell,
        stopped: Callable[[], bool],
    ):
        self.store = store
        self.conversation_id = conversation_id
        self.shown = shown
        self.bell = bell
        self.stopped = stopped

    def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        from sqlalchemy.exc import SQLAlchemyError

        try:
            if request.kind == "tool" and request.tool_name in self._allowed():
                return ApprovalDecision.run()  # "Always allow this tool" in this conversation
            pending = self.store.add(
                self.conversation_id, request.kind, request.step_number, request.code,
                request.tool_name, _plain(request.arguments), request.thought,
            )  # fmt: skip
        except SQLAlchemyError:
            logger.warning("could not keep an approval request", exc_info=True)
            return ApprovalDecision.stop(NOT_KEPT)
        self.shown.hold([_message(pending)])
        try:
            return self._wait(pending)
        finally:
            self.shown.hold([])

    def _allowed(self) -> tuple[str, ...]:
        return self.store.switch(self.conversation_id).allowed_tools

    def _wait(self, pending: StoredApproval) -> ApprovalDecision:
        """Wait for the answer; a Stop (or the row gone with its conversation) stops."""
        from sqlalchemy.exc import SQLAlchemyError

        from smolui.store.approvals import ANSWERED, TOUCH_EVERY_S, WAITING

        touched = time.monotonic()
        while True:
            if self.stopped():
                self.store.withdraw(pending.id, self.conversation_id)
                return ApprovalDecision.stop(STOPPED)
            try:
                now = self.store.get(pending.id)
                if now is None or now.state not in (WAITING, ANSWERED):
                    return ApprovalDecision.stop(STOPPED)  # deleted, or withdrawn elsewhere
                if now.state == ANSWERED:
                    return decision_of(now.decision)
                if time.monotonic() - touched >= TOUCH_EVERY_S:
                    self.store.touch(pending.id)
                    touched = time.monotonic()
            except SQLAlchemyError:  # the database is away for a moment: keep waiting
                logger.warning("could not read an approval's answer", exc_info=True)
            self.bell.wait(POLL_S)


def _message(pending: StoredApproval) -> dict[str, Any]:
    return render_pending_approval(
        pending.id, pending.kind, pending.step_number, pending.code, pending.tool_name,
        pending.arguments, pending.thought,
    )  # fmt: skip


def _plain(arguments: Any) -> Any:
    """Arguments as JSON data (a tool called from code may pass anything)."""
    import json

    try:
        json.dumps(arguments, allow_nan=False)
        return arguments
    except (TypeError, ValueError):
        return {"value": repr(arguments)} if arguments is not None else None
