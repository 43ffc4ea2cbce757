"""A turn resumed after a restart: a page answered the action a gone turn held for approval.

The app that asked is gone, but the store kept what it needs: the conversation's memory as it
was when the action was held (saved with the pending action), the chat, and the step's model
output. The conversation's agent is restored from that memory (as when a conversation is
reopened) and `agent.resume` runs the held step from the stored output, the answer replayed by
the approvals (`smolui.approvals.ReplayApprover`): the model is not asked for that step again.
The turn then goes on and ends as any turn does (published to the pages following it, saved).
It takes a turn slot as any turn does (`smolui.turns.admission`): over the person's limit of
turns at once it does not start (the action waits to be answered again), and in a full queue
it waits its place, shown to the pages following it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from agents.models.messages import ChatMessage
from smolui.auth import Identity
from smolui.render.approval import before_the_wait
from smolui.render.messages import Message
from smolui.sessions import ConversationUnavailableError, Session, SessionRegistry
from smolui.turns.admission import Admission, TurnAdmission
from smolui.turns.pending import PendingTurn
from smolui.turns.queue import Describe
from smolui.turns.runner import TurnRunner
from smolui.turns.start import Save, begin, enter, wait_for_slot
from smolui.turns.turn import TurnRequest

logger = logging.getLogger(__name__)

BUSY = "The conversation is busy with another message; answer again once it has finished."
GONE = "This conversation is no longer stored."
UNREADABLE = "The conversation's stored chat could not be read (the database is unreachable)."
ANSWER_AGAIN = "Then answer again."  # the service adds that nothing ran


class ResumedTurns:
    """Starts resumed turns (`smolui.approvals.service.Resumer`); the answering page follows
    each as a page reopened mid-turn does (`ChatHandlers.follow`).

    Args:
        registry: The live conversations (a gone one is restored from the store).
        runner: Runs turns.
        save: Keeps a conversation in the store.
        stored_chat: The conversation's stored chat (None: it could not be read).
        admission: The app's gate in front of every turn, as it is now (None: turns start
            at once).
        named: Names the owner's conversations holding their turn slots, for a refusal
            (`smolui.turns.holders.holders` for the owner); None: it names none.
    """

    def __init__(
        self,
        registry: SessionRegistry,
        runner: TurnRunner,
        save: Save,
        stored_chat: Callable[[Any], list[Message] | None],
        admission: Callable[[], TurnAdmission | None] = lambda: None,
        named: Callable[[str | None], Describe | None] = lambda owner: None,
    ):
        self.registry = registry
        self.runner = runner
        self.save = save
        self.stored_chat = stored_chat
        self.admission = admission
        self.named = named

    def __call__(
        self,
        conversation_id: str,
        pending: Any,
        page: str | None,
        identity: Identity | None = None,
    ) -> str | None:
        """Resume the conversation's turn at the held action; None when it started (or
        waits its place in the queue), else why not.

        Args:
            conversation_id: The conversation.
            pending: The answered `StoredApproval` (with the step's `model_output`).
            page: The answering page (it follows the turn).
            identity: Who answered (their limits count it; None: an anonymous visitor).
        """
        try:
            session = self.registry.open(conversation_id, page)
        except ConversationUnavailableError as error:
            return str(error)
        if session.id != conversation_id:
            return GONE
        session, claimed = self.registry.claim(session, page)
        if not claimed:
            return BUSY
        try:
            chat = self.stored_chat(session)
            if chat is None:
                session.end_turn()
                return UNREADABLE
            chat = before_the_wait(chat)  # the held step shows again as it runs
            output = ChatMessage.from_dict(pending.model_output)
            request = TurnRequest("", resume_from=output, resume_step=pending.step_number)
            describe = self.named(session.owner)
        except Exception:
            session.end_turn()
            raise
        # A turn slot as any turn takes (`enter` releases the claim should it fail).
        entered = enter(self.admission(), session, PendingTurn(), identity, describe, ANSWER_AGAIN)
        if isinstance(entered, str):  # over the person's limits: nothing starts
            session.end_turn()
            return entered
        try:
            begin(session, chat, self.save)
        except Exception:
            entered.release()
            session.end_turn()
            raise
        session.live_turn.shown_to(page)  # the answering page follows it
        # Nobody else drives the turn here: a thread waits for its slot, then runs it.
        threading.Thread(target=self._run, args=(session, entered, chat, request),
                         name="smolui-resumed", daemon=True).start()  # fmt: skip
        return None

    def _run(
        self, session: Session, entered: Admission, chat: list[Message], request: TurnRequest
    ) -> None:
        """Wait for a running slot (its place in line shown to the pages following the
        turn), then run the turn to its end."""
        waiting = wait_for_slot(entered, session, chat, self.save)
        while True:
            try:
                shown, _ = next(waiting)
            except StopIteration as done:
                admission = done.value
                break
            session.live_turn.publish(shown)
        if admission is None:  # Stop left the queue: nothing ran
            return
        turn = self.runner.run(session, PendingTurn(), chat, admission, request=request)
        for _ in turn:  # the runner's generator starts the turn and follows it
            pass
