"""A turn resumed after a restart: a page answered the action a gone turn held for approval.

The app that asked is gone, but the store kept what it needs: the conversation's memory as it
was when the action was held (saved with the pending action), the chat, and the step's model
output. The conversation's agent is restored from that memory (as when a conversation is
reopened) and `agent.resume` runs the held step from the stored output, the answer replayed by
the approvals (`smolui.approvals.ReplayApprover`): the model is not asked for that step again.
The turn then goes on and ends as any turn does (published to the pages following it, saved).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

from agents.models.messages import ChatMessage
from smolui.render.approval import PENDING_PREFIX
from smolui.render.messages import Message
from smolui.sessions import ConversationUnavailableError, SessionRegistry
from smolui.turns.admission import Admission
from smolui.turns.pending import PendingTurn
from smolui.turns.runner import TurnRunner
from smolui.turns.start import Save, begin
from smolui.turns.turn import TurnRequest

logger = logging.getLogger(__name__)

BUSY = "The conversation is busy with another message; answer again once it has finished."
GONE = "This conversation is no longer stored."
UNREADABLE = "The conversation's stored chat could not be read (the database is unreachable)."


class ResumedTurns:
    """Starts resumed turns (`smolui.approvals.service.Resumer`) and lets the answering page
    follow them.

    Args:
        registry: The live conversations (a gone one is restored from the store).
        runner: Runs turns.
        save: Keeps a conversation in the store.
        stored_chat: The conversation's stored chat (None: it could not be read).
    """

    def __init__(
        self,
        registry: SessionRegistry,
        runner: TurnRunner,
        save: Save,
        stored_chat: Callable[[Any], list[Message] | None],
    ):
        self.registry = registry
        self.runner = runner
        self.save = save
        self.stored_chat = stored_chat

    def __call__(self, conversation_id: str, pending: Any, page: str | None) -> str | None:
        """Resume the conversation's turn at the held action; None when it started.

        Args:
            conversation_id: The conversation.
            pending: The answered `StoredApproval` (with the step's `model_output`).
            page: The answering page (it follows the turn).
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
            chat = [m for m in chat if not _is_pending_approval(m)]
            output = ChatMessage.from_dict(pending.model_output)
            request = TurnRequest("", resume_from=output, resume_step=pending.step_number)
            begin(session, chat, self.save)
        except Exception:
            session.end_turn()
            raise
        session.live_turn.shown_to(page)  # the answering page follows it (`follow`)
        turn = self.runner.run(session, PendingTurn(), chat, Admission(None, [], None),
                               request=request)  # fmt: skip
        # The runner's generator starts the turn and follows it; nobody else drains it here.
        threading.Thread(target=_drain, args=(turn,), name="smolui-resumed", daemon=True).start()
        return None

    def follow(self, conversation_id: str, page: str | None) -> Iterator[list[Message]]:
        """The resumed turn's chat as it changes, for the page that answered (once).

        Args:
            conversation_id: The page's conversation.
            page: The page's session hash.
        """
        session = self.registry.get(conversation_id)
        live = session.live_turn if session is not None else None
        if live is None or not live.claim(page):
            return
        yield from live.follow()


def _is_pending_approval(message: Message) -> bool:
    metadata = message.get("metadata") or {}
    return str(metadata.get("id") or "").startswith(PENDING_PREFIX)


def _drain(turn: Iterator[Any]) -> None:
    for _ in turn:
        pass
