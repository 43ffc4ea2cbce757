"""What the side panel lists of a conversation (its model, its uploads, the chat shown), read
from its live agent's session or, when that was let go, from the store.

A version switch lets the live agent go (`smolui.conversations.branches`), and so does
eviction; the conversation itself is still stored, so the panel reads it from there, for its
owner only, without building an agent.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from smolui.sessions import Session

if TYPE_CHECKING:
    from smolui.conversations.keeper import ConversationKeeper

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PanelFacts:
    """One conversation as the side panel describes it.

    Args:
        conversation_id: Which conversation.
        owner: Whose it is (None: nobody's, nothing of it is stored).
        model: The model spec it uses (None: the app's default).
        uploads: Its uploaded files (`AcceptedFile`s).
        chat: The branch shown, as stored, when it was read already (None: read it when
            needed, as a live conversation's may have changed since).
    """

    conversation_id: str
    owner: str | None
    model: str | None
    uploads: list[Any] = field(default_factory=list)
    chat: list[dict[str, Any]] | None = None


def live_facts(session: Session) -> PanelFacts:
    """The facts of a live conversation, from its session.

    Args:
        session: The live conversation.
    """
    return PanelFacts(session.id, session.owner, session.model, list(session.files))


def stored_facts(keeper: ConversationKeeper, owner: str, conversation_id: str) -> PanelFacts | None:
    """The facts of the owner's stored conversation, or None (not stored, someone else's,
    damaged, or the store cannot answer now: the panel is then drawn without them).

    Args:
        keeper: The app's conversation keeper.
        owner: Whose page asks (from the request's identity).
        conversation_id: The page's conversation id.
    """
    try:
        record = keeper.find(owner, conversation_id)
        if record is None:
            return None
        return PanelFacts(
            record.id, record.owner, record.model, keeper.uploads(record), keeper.chat(record)
        )
    except Exception as error:  # the database is down, or the record is damaged
        logger.warning("could not read a stored conversation for the side panel: %s", error)
        return None


__all__ = ["PanelFacts", "live_facts", "stored_facts"]
