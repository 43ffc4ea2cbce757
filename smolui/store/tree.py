"""`ConversationTree`: the branches of the owner's conversations, through the store.

Editing an earlier message or answering again starts a branch (`fork`); the versions of a
message on the branch shown (`versions`) let the page switch between them (`switch`); a
search hit opens on the branch that holds it (`show_match`). Every call names the owner; a
conversation that is someone else's reads as missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from smolui.store import branches
from smolui.store.branches import Versions
from smolui.store.conversations import ConversationStore
from smolui.store.schema import ChatMessageRow, Conversation, ConversationBranch, MemoryStepRow


class ConversationTree:
    """Branches of stored conversations.

    Args:
        store: The conversation store.
    """

    def __init__(self, store: ConversationStore):
        self.store = store

    @contextmanager
    def _owned(self, owner: str, conversation_id: str) -> Iterator[tuple[Session, Any]]:
        """A transaction holding the conversation's row lock, and its row (None: not the
        owner's)."""
        with self.store.session() as session, session.begin():
            row = session.get(Conversation, conversation_id, with_for_update=True)
            yield session, (row if row is not None and row.owner == owner else None)

    def active_branch(self, owner: str, conversation_id: str) -> int | None:
        """The number of the branch shown (None: not the owner's conversation).

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
        """
        with self._owned(owner, conversation_id) as (_, row):
            return None if row is None else row.active_branch or 0

    def active_path(self, owner: str, conversation_id: str) -> list[dict[str, Any]]:
        """The messages of the branch shown, first to last (empty: not the owner's).

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
        """
        with self._owned(owner, conversation_id) as (session, row):
            if row is None:
                return []
            return branches.read_path(session, conversation_id, row.active_branch or 0)[0]

    def versions(self, owner: str, conversation_id: str) -> list[Versions]:
        """The messages of the branch shown that have other versions.

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
        """
        with self._owned(owner, conversation_id) as (session, row):
            if row is None:
                return []
            active = row.active_branch or 0
            length = branches.message_count(session, conversation_id, active)
            return branches.versions(session, conversation_id, active, length)

    def fork(self, owner: str, conversation_id: str, at: int, messages: list[Any]) -> int | None:
        """Start a branch from the one shown, parting at message `at`, and show it. It holds
        `messages` (the chat before the fork) and the memory of the turns they hold; the
        turn that follows is saved into it. Returns its number (None: not the owner's).

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
            at: The first message that differs (the edited one, or the answer retried).
            messages: The chat before `at`, as stored.
        """
        now = datetime.now(UTC)
        with self._owned(owner, conversation_id) as (session, row):
            if row is None:
                return None
            parent = row.active_branch or 0
            _, steps = branches.read_path(session, conversation_id, parent)
            kept = branches.steps_before_turn(steps, branches.answered_turns(messages[:at]))
            new = branches.fork(session, conversation_id, parent, at, messages[:at], kept, now)
            branches.show(session, conversation_id, new, now)
            row.updated_at = now
            return new

    def switch(self, owner: str, conversation_id: str, position: int, step: int) -> bool:
        """Show another version of message `position`: the previous (`step` -1) or the next
        (1). Returns whether the branch shown changed.

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
            position: The message whose version changes.
            step: -1 or 1.
        """
        now = datetime.now(UTC)
        with self._owned(owner, conversation_id) as (session, row):
            if row is None:
                return False
            active = row.active_branch or 0
            target = branches.pick(session, conversation_id, active, position, step)
            if target == active:
                return False
            branches.show(session, conversation_id, target, now)
            return True

    def show_match(self, owner: str, conversation_id: str, query: str) -> bool:
        """Show the branch holding a search hit when the branch shown holds none. Returns
        whether the branch shown changed.

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
            query: What the person searched for.
        """
        now = datetime.now(UTC)
        with self._owned(owner, conversation_id) as (session, row):
            if row is None:
                return False
            active = row.active_branch or 0
            target = branches.matching_branch(session, conversation_id, active, query)
            if target == active:
                return False
            branches.show(session, conversation_id, target, now)
            return True

    def take_back(self, owner: str, conversation_id: str) -> bool:
        """Undo a fork whose turn never ran (refused before it started): the branch shown is
        dropped when it holds nothing past where it parts and nothing grew from it, and the
        one it came from is shown again. Returns whether it was dropped.

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
        """
        now = datetime.now(UTC)
        with self._owned(owner, conversation_id) as (session, row):
            if row is None or not row.active_branch:
                return False
            active = row.active_branch
            node = session.get(ConversationBranch, (conversation_id, active))
            if node is None or node.parent is None:
                return False
            if branches.message_count(session, conversation_id, active) > node.fork:
                return False  # the turn it was started for saved into it: a real version
            grown = select(func.count()).where(
                ConversationBranch.conversation_id == conversation_id,
                ConversationBranch.parent == active,
            )
            if session.execute(grown).scalar():
                return False
            for model in (ChatMessageRow, MemoryStepRow):
                session.execute(
                    delete(model).where(
                        model.conversation_id == conversation_id, model.branch == active
                    )
                )
            parent = node.parent
            session.delete(node)
            branches.show(session, conversation_id, parent, now)
            return True


__all__ = ["ConversationTree", "Versions"]
