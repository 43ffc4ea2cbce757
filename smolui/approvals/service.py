"""`ChatApprovals`: the app's approvals: which conversations ask, the turn's approver, and the
answers pages give.

Made once with the app from the `--approve` setting and a way to reach the store; the turn
runner calls `begin_turn` before each turn, the page's buttons call `answer`.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agents.approval import ApprovalPolicy
from agents.loop.agent import MultiStepAgent
from smolui.approvals.approver import ConversationApprover
from smolui.approvals.setting import approve_value, default_on
from smolui.approvals.waiting import AnswerBell, Message, TurnApprovals
from smolui.render.approval import arguments_text
from smolui.sessions import Session

if TYPE_CHECKING:  # the store (SQLAlchemy) loads on first use, not with the app
    from smolui.store.approvals import ApprovalStore, StoredApproval

ACTIONS = ("run", "skip", "stop", "always")
ALREADY_ANSWERED = "This action was already answered (in another tab, or by someone else)."
GONE = (
    "The turn that asked for this is gone (the app restarted or the turn ended); nothing ran. "
    "Send a message to continue."
)


@dataclass(frozen=True)
class Answered:
    """What became of a page's answer.

    Args:
        ok: It was taken (False: refused, or another answer won).
        message: What to tell the person when it was not taken ("" when it was).
    """

    ok: bool
    message: str = ""


class ChatApprovals:
    """Approvals for the app's conversations.

    Args:
        setting: The `--approve` value (the default of every conversation).
        store: Returns the conversation store (its `engine` holds the approvals too).
    """

    def __init__(self, setting: str, store: Callable[[], Any]):
        self.setting = setting
        self._store = store
        self._approvals: ApprovalStore | None = None
        self._lock = threading.Lock()
        self.bell = AnswerBell()
        # An agent's own approve=/approver= (a script's), put back when approval is off.
        self._own: weakref.WeakKeyDictionary[Any, tuple[Any, Any]] = weakref.WeakKeyDictionary()

    @property
    def store(self) -> ApprovalStore:
        """The approvals' store (on the conversation store's database)."""
        from smolui.store.approvals import ApprovalStore

        engine = self._store().engine
        with self._lock:
            if self._approvals is None or self._approvals.engine is not engine:
                self._approvals = ApprovalStore(engine)
            return self._approvals

    # -- the switch ----------------------------------------------------------------------

    def enabled(self, conversation_id: str) -> bool:
        """Whether the conversation's turns ask before running (its switch, or the default).

        Args:
            conversation_id: The conversation.
        """
        own = self.store.switch(conversation_id).enabled
        return default_on(self.setting) if own is None else own

    def set_enabled(self, conversation_id: str, enabled: bool) -> None:
        """Turn approval on or off for one conversation (from its next action on).

        Args:
            conversation_id: The conversation.
            enabled: On or off.
        """
        self.store.set_enabled(conversation_id, enabled)

    # -- a turn --------------------------------------------------------------------------

    def begin_turn(
        self,
        session: Session,
        agent: MultiStepAgent,
        publish: Callable[[list[Message]], None],
        keep: Callable[[list[Message]], Any] | None = None,
        chat: list[Message] | None = None,
    ) -> TurnApprovals:
        """Give the conversation's agent the approver (or take it away) for the coming turn.

        Args:
            session: The conversation.
            agent: Its agent.
            publish: Shows a chat to every page following the turn.
            keep: Saves a chat as the conversation's while the turn runs.
            chat: The chat when the turn starts.

        Returns:
            The turn's chat: the follower shows its chat through it.

        Raises:
            AgentConfigError: `--approve` names a tool this agent does not have.
        """
        shown = TurnApprovals(publish, keep, chat)
        gate = agent.approval
        own_policy, own_approver = self._own.setdefault(agent, (gate.policy, gate.approver))
        if not self.enabled(session.id):
            gate.policy, gate.approver = own_policy, own_approver
            return shown
        names = [*agent.tools, *agent.managed_agents]
        gate.policy = ApprovalPolicy.parse(approve_value(self.setting), names)
        stopped = lambda: session.stop_requested.is_set() or gate.interrupted()  # noqa: E731
        gate.approver = ConversationApprover(self.store, session.id, shown, self.bell, stopped)
        return shown

    # -- answers -------------------------------------------------------------------------

    def waiting(self, conversation_id: str) -> StoredApproval | None:
        """The conversation's action waiting for an answer, or None.

        Args:
            conversation_id: The conversation.
        """
        return self.store.waiting(conversation_id)

    def answer(
        self,
        conversation_id: str,
        approval_id: str,
        action: str,
        text: str = "",
        reason: str = "",
    ) -> Answered:
        """Answer a pending action; of several answers at once exactly one is taken.

        Args:
            conversation_id: The page's conversation.
            approval_id: The pending approval the page shows.
            action: "run" (with `text` changed: run the edited code or arguments), "skip",
                "stop", or "always" (run, and run this tool unasked from now on).
            text: The editor's text: the code, or the arguments as JSON.
            reason: For a skip or a stop: why (the model reads a skip's reason).
        """
        if action not in ACTIONS:
            return Answered(False, f"Unknown answer {action!r}; use one of {', '.join(ACTIONS)}.")
        pending = self.store.get(approval_id)
        if pending is None or pending.conversation_id != conversation_id:
            return Answered(False, "This approval is not part of this conversation.")
        if pending.state != "waiting":  # `smolui.store.approvals.WAITING`
            return Answered(False, ALREADY_ANSWERED)
        if pending.stale:
            self.store.withdraw(approval_id, conversation_id)
            return Answered(False, GONE)
        decision = _decision(pending, action, text, reason)
        if isinstance(decision, str):
            return Answered(False, decision)
        if action == "always" and pending.tool_name:
            self.store.allow_tool(conversation_id, pending.tool_name)
        if not self.store.answer(approval_id, conversation_id, decision):
            return Answered(False, ALREADY_ANSWERED)
        self.bell.ring()
        return Answered(True)


def editor_text(pending: StoredApproval) -> str:
    """What the editor shows for a pending action: the code, or the arguments as JSON.

    Args:
        pending: The pending approval.
    """
    if pending.kind == "code":
        return pending.code or ""
    return arguments_text(pending.arguments)


def _decision(pending: StoredApproval, action: str, text: str, reason: str) -> dict[str, Any] | str:
    """The decision to store, or what is wrong with the answer."""
    if action in ("skip", "stop"):
        return {"action": action, "reason": reason.strip()}
    if pending.kind == "code":
        if text.strip() and text.strip() != (pending.code or "").strip():
            return {"action": "edit", "code": text}
        return {"action": "run"}
    if not text.strip() or text.strip() == editor_text(pending).strip():
        return {"action": "run"}
    try:
        arguments = json.loads(text)
    except ValueError as error:
        return (
            f"The arguments are not valid JSON ({error.msg}, line {error.lineno}); fix them first."
        )
    if not isinstance(arguments, dict):
        return 'The arguments must be a JSON object, e.g. {"to": "a@example.com"}.'
    if arguments == pending.arguments:
        return {"action": "run"}
    return {"action": "edit", "arguments": arguments}
