"""`ChatApprovals`: the app's approvals: which conversations ask, the turn's approver, and the
answers pages give.

Made once with the app from the `--approve` settings and a way to reach the store; the turn
runner calls `begin_turn` before each turn, the page's buttons call `answer`. An answer to an
action whose turn is gone (the app restarted) resumes that turn through the `Resumer` the
chat handlers give (`resume_with`): its agent, restored from the stored memory, runs the held
action as answered, without asking the model again for that step.
"""

from __future__ import annotations

import json
import logging
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from agents.approval import ApprovalPolicy
from agents.loop.agent import MultiStepAgent
from smolui.approvals.approver import ConversationApprover, ReplayApprover
from smolui.approvals.setting import approve_value, default_on, missing_tools
from smolui.approvals.waiting import POLL_S, AnswerBell, Message, TurnApprovals
from smolui.render.approval import arguments_text
from smolui.sessions import Session

if TYPE_CHECKING:  # the store (SQLAlchemy) loads on first use, not with the app
    from smolui.store.approvals import ApprovalStore, StoredApproval

logger = logging.getLogger(__name__)

ACTIONS = ("run", "skip", "stop", "always")
ALREADY_ANSWERED = "This action was already answered (in another tab, or by someone else)."
GONE = (
    "The turn that asked for this is gone (the app restarted or the turn ended); nothing ran. "
    "Send a message to continue."
)
NO_LONGER_WAITING = (
    "This action no longer waits for an answer (its turn was stopped, or no answer came in "
    "time); nothing ran."
)
REQUIRED = "This server requires approval in every conversation; it cannot be switched off."


class Resumer(Protocol):
    """Resumes a turn that is gone, for an answer to its held action (`smolui.turns`)."""

    def __call__(
        self,
        conversation_id: str,
        pending: StoredApproval,
        page: str | None,
        identity: Any = None,
    ) -> str | None:
        """Start the turn again from the stored memory, in a turn slot as any turn; None
        when it started, else why not.

        Args:
            conversation_id: The conversation.
            pending: The answered approval (its `model_output` is the step's).
            page: The answering page, which then follows the turn (as a page reopened
                mid-turn does: `ChatHandlers.follow`).
            identity: Who answered (`smolui.auth.Identity`: the limits they are held to);
                None: an anonymous visitor.
        """
        ...


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
        timeout_s: Seconds a turn waits for an answer before it ends, running nothing
            (`--approval-timeout`; None: as long as it takes).
        required: Every conversation asks; its switch cannot turn that off
            (`--approve-required`).
        poll_s: How often a waiting turn reads the store (answers from other replicas).
    """

    def __init__(
        self,
        setting: str,
        store: Callable[[], Any],
        timeout_s: float | None = None,
        required: bool = False,
        poll_s: float = POLL_S,
    ):
        self.setting = setting
        self.timeout_s = timeout_s if timeout_s else None
        self.required = required
        self.poll_s = poll_s
        self._store = store
        self._approvals: ApprovalStore | None = None
        self._lock = threading.Lock()
        self.bell = AnswerBell()
        self._waiting: set[str] = set()  # approvals a turn of this process waits on
        self._resumer: Resumer | None = None
        # Per conversation: the answered approval a resumed turn replays.
        self._replays: dict[str, tuple[StoredApproval, dict[str, Any]]] = {}
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
        if self.required:
            return True
        own = self.store.switch(conversation_id).enabled
        return self.default_enabled() if own is None else own

    def default_enabled(self) -> bool:
        """Whether a conversation without its own switch asks (a new chat): `--approve`."""
        return self.required or default_on(self.setting)

    def set_enabled(self, conversation_id: str, enabled: bool) -> bool:
        """Turn approval on or off for one conversation (from its next action on); False,
        changing nothing, when the server requires approval and `enabled` is False.

        Args:
            conversation_id: The conversation.
            enabled: On or off.
        """
        if self.required and not enabled:
            return False
        self.store.set_enabled(conversation_id, enabled)
        return True

    def resume_with(self, resumer: Resumer) -> None:
        """Resume turns that are gone when their held action is answered.

        Args:
            resumer: Starts such a turn again (the chat handlers', which run turns).
        """
        self._resumer = resumer

    # -- a turn --------------------------------------------------------------------------

    def begin_turn(
        self,
        session: Session,
        agent: MultiStepAgent,
        publish: Callable[[list[Message]], None],
        keep: Callable[[list[Message]], Any] | None = None,
        chat: list[Message] | None = None,
        slot: Any = None,
    ) -> TurnApprovals:
        """Give the conversation's agent the approver (or take it away) for the coming turn.

        Args:
            session: The conversation.
            agent: Its agent.
            publish: Shows a chat to every page following the turn.
            keep: Saves a chat as the conversation's while the turn runs.
            chat: The chat when the turn starts.
            slot: The turn's running slot (a `TurnSlotLease`), given up while it waits for
                an answer (None: it has none).

        Returns:
            The turn's chat: the follower shows its chat through it.
        """
        shown = TurnApprovals(publish, keep, chat)
        self._supersede(session.id)
        gate = agent.approval
        own_policy, own_approver = self._own.setdefault(agent, (gate.policy, gate.approver))
        replay = self._replays.pop(session.id, None)
        if replay is None and not self.enabled(session.id):
            gate.policy, gate.approver, gate.on_interrupt = own_policy, own_approver, None
            return shown
        names = [*agent.tools, *agent.managed_agents]
        missing = missing_tools(self.setting, names)
        if missing:
            logger.warning("--approve names %s, which this agent does not have: nothing waits "
                           "for them here", ", ".join(missing))  # fmt: skip
        gate.policy = ApprovalPolicy.parse(approve_value(self.setting, names), names)
        stopped = lambda: session.stop_requested.is_set() or gate.interrupted()  # noqa: E731
        approver: Any = ConversationApprover(
            self.store, session.id, shown, self.bell, stopped, self.timeout_s, self.poll_s,
            self._waiting, slot,
        )  # fmt: skip
        if replay is not None:  # a resumed turn: its held action was answered already
            approver = ReplayApprover(*replay, then=approver)
        gate.approver = approver
        gate.on_interrupt = self.bell.ring  # Stop wakes the waiting turn at once
        return shown

    def _supersede(self, conversation_id: str) -> None:
        """A new turn starts: an action a gone turn held (the app restarted) can no longer
        be resumed (memory moves on), so it stops waiting."""
        left = self.store.waiting(conversation_id)
        if left is not None and self._gone(left):
            self.store.withdraw(left.id, conversation_id)

    # -- answers -------------------------------------------------------------------------

    def waiting(self, conversation_id: str) -> StoredApproval | None:
        """The conversation's action waiting for an answer, or None.

        Args:
            conversation_id: The conversation.
        """
        return self.store.waiting(conversation_id)

    def held_here(self, conversation_id: str) -> bool:
        """Whether a turn of this process waits for a person's answer in the conversation.
        At shutdown such a turn is left waiting, its action kept in the store: answered after
        the restart, it resumes (as after a crash), rather than being stopped.

        Args:
            conversation_id: The conversation.
        """
        from sqlalchemy.exc import SQLAlchemyError

        try:
            left = self.store.waiting(conversation_id)
        except SQLAlchemyError:  # the database is away: nothing can be kept either
            return False
        return left is not None and left.id in self._waiting

    def answer(
        self,
        conversation_id: str,
        approval_id: str,
        action: str,
        text: str = "",
        reason: str = "",
        page: str | None = None,
        identity: Any = None,
    ) -> Answered:
        """Answer a pending action; of several answers at once exactly one is taken. An
        action whose turn is gone (the app restarted) resumes that turn, answered.

        Args:
            conversation_id: The page's conversation.
            approval_id: The pending approval the page shows.
            action: "run" (with `text` changed: run the edited code or arguments), "skip",
                "stop", or "always" (run, and run this tool unasked from now on).
            text: The editor's text: the code, or the arguments as JSON.
            reason: For a skip or a stop: why (the model reads a skip's reason).
            page: The answering page's session hash (it follows a resumed turn).
            identity: Who answers (`smolui.auth.Identity`): a resumed turn counts against
                their limits; None: an anonymous visitor.
        """
        if action not in ACTIONS:
            return Answered(False, f"Unknown answer {action!r}; use one of {', '.join(ACTIONS)}.")
        pending = self.store.get(approval_id)
        if pending is None or pending.conversation_id != conversation_id:
            return Answered(False, "This approval is not part of this conversation.")
        if pending.state == "withdrawn":  # `smolui.store.approvals.WITHDRAWN`
            return Answered(False, NO_LONGER_WAITING)
        if pending.state != "waiting":  # `smolui.store.approvals.WAITING`
            return Answered(False, ALREADY_ANSWERED)
        gone, resumer = self._gone(pending), self._resumer
        if gone and (resumer is None or pending.model_output is None):
            self.store.withdraw(approval_id, conversation_id)
            return Answered(False, GONE)
        decision = _decision(pending, action, text, reason)
        if isinstance(decision, str):
            return Answered(False, decision)
        if action == "always" and pending.tool_name:
            self.store.allow_tool(conversation_id, pending.tool_name)
        if not self.store.answer(approval_id, conversation_id, decision):
            return Answered(False, ALREADY_ANSWERED)
        if gone and resumer is not None:
            return self._resume(resumer, conversation_id, pending, decision, page, identity)
        self.bell.ring()
        return Answered(True)

    def _gone(self, pending: StoredApproval) -> bool:
        """Whether no turn waits on this approval any more: nobody touched it lately, or,
        on a database of this process alone, no turn of this process waits on it."""
        if pending.stale:
            return True
        alone = self.store.engine.dialect.name == "sqlite"  # replicas share another database
        return alone and pending.id not in self._waiting

    def _resume(
        self, resumer: Resumer, conversation_id: str, pending: StoredApproval,
        decision: dict[str, Any], page: str | None, identity: Any = None,
    ) -> Answered:  # fmt: skip
        """Start the gone turn again with this answer for its held action."""
        self._replays[conversation_id] = (pending, decision)
        problem = resumer(conversation_id, pending, page, identity)
        if problem is not None:  # it waits again, to be answered once the problem is gone
            self._replays.pop(conversation_id, None)
            self.store.reopen(pending.id, conversation_id)
            return Answered(False, f"{problem} Nothing ran.")
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
