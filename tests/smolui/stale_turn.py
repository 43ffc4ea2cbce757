"""Make a conversation's stored running state look as old as a dead turn's: the time a fleet
waits before it calls a silent turn interrupted (`smolui.conversations.interrupted`), passed
at once instead of waited for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update

from smolui.conversations.interrupted import STALE_AFTER_S
from smolui.store.schema import Conversation


def age_running_state(store: Any, conversation_id: str) -> None:
    """Move the conversation's last write back past `STALE_AFTER_S`.

    Args:
        store: A `ConversationStore` on the conversation's database.
        conversation_id: Which conversation.
    """
    then = datetime.now(UTC) - timedelta(seconds=STALE_AFTER_S + 60)
    with store.session() as session, session.begin():
        statement = update(Conversation).where(Conversation.id == conversation_id)
        session.execute(statement.values(updated_at=then))
