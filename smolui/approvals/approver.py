"""`ConversationApprover`: the approver a conversation's agent gets while approval is on.

Each request becomes a pending approval in the store (with the step's model output, so that
the turn can be resumed after a restart), shown in the chat; the agent's thread then waits,
its turn slot given up meanwhile (`TurnSlotLease`), until a page answers it, Stop ends the turn (it rings the bell: the wait ends at once), or the
app's timeout passes (nothing runs). The answer, read from the store, becomes the
`ApprovalDecision`. `ReplayApprover` gives a resumed turn the answer already given.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from agents.approval import ApprovalDecision, ApprovalRequest
from smolui.approvals.waiting import POLL_S, AnswerBell, TurnApprovals
from smolui.render.approval import render_pending_approval
from smolui.render.messages import render_notice

if TYPE_CHECKING:  # the store (SQLAlchemy) loads on the first approval, not with the app
    from smolui.store.approvals import ApprovalStore, StoredApproval

logger = logging.getLogger(__name__)

NOT_KEPT = "the approval request could not be kept (the database is unreachable)"
STOPPED = "Stopped while the action waited for approval."
SLOT_BUSY = (
    "Answered. The turn goes on as soon as a turn slot is free: another of your turns runs, or "
    "the server is busy (number {position} in line). Nothing runs meanwhile; Stop ends the turn."
)


class TurnSlotLease(Protocol):
    """The turn's running slot (`smolui.turns.admission.Admission`): given up while the
    person answers, so that a turn nobody answers locks nobody out, and taken back after."""

    def step_aside(self) -> None:
        """Give the running slot up until `take_back`."""
        ...

    def take_back(self) -> None:
        """Ask for a running slot again, ahead of new turns."""
        ...

    def back(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds; True once the turn holds a running slot again."""
        ...

    @property
    def position(self) -> int:
        """Its place in line while it waits to go on (1: next)."""
        ...


def timed_out(seconds: float) -> str:
    """The reason a turn ends with when nobody answered in time.

    Args:
        seconds: The app's approval timeout.
    """
    return f"No answer within {seconds:g} s: nothing ran."


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
        bell: Rung when a page of this process answers, and when the turn is stopped.
        stopped: True once the turn was stopped (nothing more may run).
        timeout_s: Seconds to wait for an answer before the turn ends (None: no limit).
        poll_s: How often the store is read meanwhile (answers from another replica).
        waiting: The ids of the approvals this process waits on (a row not in it, on a
            database of this process alone, belongs to a turn that is gone).
        slot: The turn's running slot, given up while it waits (None: it has none).
    """

    def __init__(
        self,
        store: ApprovalStore,
        conversation_id: str,
        shown: TurnApprovals,
        bell: AnswerBell,
        stopped: Callable[[], bool],
        timeout_s: float | None = None,
        poll_s: float = POLL_S,
        waiting: set[str] | None = None,
        slot: TurnSlotLease | None = None,
    ):
        self.store = store
        self.conversation_id = conversation_id
        self.shown = shown
        self.bell = bell
        self.stopped = stopped
        self.timeout_s = timeout_s
        self.poll_s = poll_s
        self.waiting = waiting if waiting is not None else set()
        self.slot = slot

    def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        from sqlalchemy.exc import SQLAlchemyError

        try:
            if request.kind == "tool" and request.tool_name in self._allowed():
                return ApprovalDecision.run()  # "Always allow this tool" in this conversation
            if self.slot is not None:  # before it shows: a page seeing it may send elsewhere
                self.slot.step_aside()  # nobody may come: the wait must lock nobody out
            pending = self.store.add(
                self.conversation_id, request.kind, request.step_number, request.code,
                request.tool_name, _plain(request.arguments), request.thought,
                _output_data(request.model_output),
            )  # fmt: skip
        except SQLAlchemyError:
            logger.warning("could not keep an approval request", exc_info=True)
            return ApprovalDecision.stop(NOT_KEPT)
        self.waiting.add(pending.id)
        try:
            self.shown.hold([_message(pending)])
            decision = self._wait(pending)
            if decision.action != "stop" and self.slot is not None:
                return self._take_back(decision)
            return decision  # a stopped turn ends: its slot is simply given back
        finally:
            self.waiting.discard(pending.id)
            self.shown.hold([])

    def _allowed(self) -> tuple[str, ...]:
        return self.store.switch(self.conversation_id).allowed_tools

    def _wait(self, pending: StoredApproval) -> ApprovalDecision:
        """Wait for the answer; a Stop (or the row gone with its conversation) stops, and
        so does the timeout (the row withdrawn: a late answer is told it is too late)."""
        from sqlalchemy.exc import SQLAlchemyError

        from smolui.store.approvals import ANSWERED, TOUCH_EVERY_S, WAITING

        touched = started = time.monotonic()
        while True:
            rings = self.bell.rings  # before looking: a ring while it looks is not missed
            if self.stopped():
                self.store.withdraw(pending.id, self.conversation_id)
                return ApprovalDecision.stop(STOPPED)
            waited = time.monotonic() - started
            late = self.timeout_s is not None and waited >= self.timeout_s
            # Withdrawn, unless an answer came first (then it is read below).
            if late and self.store.withdraw(pending.id, self.conversation_id):
                return ApprovalDecision.stop(timed_out(self.timeout_s))
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
            self.bell.wait(self._next_wait(waited), since=rings)

    def _take_back(self, decision: ApprovalDecision) -> ApprovalDecision:
        """Run again once a slot is free, saying so while it waits; Stop ends the wait."""
        self.slot.take_back()
        told = False
        while not self.slot.back(self.poll_s):
            if self.stopped():
                return ApprovalDecision.stop(STOPPED)
            if not told:
                notice = SLOT_BUSY.format(position=max(1, self.slot.position))
                self.shown.hold([render_notice(notice, "⏳")])
                told = True
        return decision

    def _next_wait(self, waited: float) -> float:
        if self.timeout_s is None:
            return self.poll_s
        return max(0.0, min(self.poll_s, self.timeout_s - waited))


class ReplayApprover:
    """A resumed turn's approver: the held action's request gets the answer a page gave
    (after the restart); any other request is asked as usual.

    Args:
        pending: The stored approval the turn is resumed for.
        decision: The answer given to it.
        then: The approver for every other request.
    """

    def __init__(self, pending: StoredApproval, decision: dict[str, Any], then: Any):
        self.pending, self.decision, self.then = pending, decision, then

    def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        pending = self.pending
        if pending is not None and _same_action(pending, request):
            self.pending = None  # once: the step's next request is a new one
            return decision_of(self.decision)
        return self.then(request)


def _same_action(pending: StoredApproval, request: ApprovalRequest) -> bool:
    if (request.kind, request.step_number) != (pending.kind, pending.step_number):
        return False
    if request.kind == "code":
        return (request.code or "").strip() == (pending.code or "").strip()
    return request.tool_name == pending.tool_name and _plain(request.arguments) == pending.arguments


def _output_data(model_output: Any) -> dict[str, Any] | None:
    """The step's model message as JSON data (None when there is none)."""
    import json

    if model_output is None:
        return None
    try:
        data = model_output.dict()
    except AttributeError:
        return None
    if isinstance(data.get("content"), list):  # images a model wrote are not kept
        data["content"] = [b for b in data["content"] if b.get("type") == "text"]
    return json.loads(json.dumps(data, default=repr))


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
