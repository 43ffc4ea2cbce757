"""Branches of live conversations: edit or answer again on a new branch, switch versions.

The store keeps every branch (`smolui.store.tree`); this module keeps the live agent in step
with the branch shown. An agent remembers one path, so when another branch is shown its
live conversation is let go (`SessionRegistry.evict`): the next turn resumes from the store
with that branch's memory, and the model is told its variables were lost, as on any resume.
The page is not told "reopened from storage": the person switched, nothing was reopened
(`smolui.conversations.followed`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from smolui.conversations.keeper import ConversationKeeper
    from smolui.sessions import Session, SessionRegistry
    from smolui.store.tree import ConversationTree

logger = logging.getLogger(__name__)

Message = dict[str, Any]


class Branches:
    """Fork, list and switch the branches of one app's conversations.

    Args:
        keeper: The app's conversation keeper (the store).
        registry: The live conversations.
    """

    def __init__(self, keeper: ConversationKeeper, registry: SessionRegistry):
        self.keeper = keeper
        self.registry = registry

    @property
    def tree(self) -> ConversationTree:
        """The store's branches (the store opens on first use)."""
        from smolui.store.tree import ConversationTree

        return ConversationTree(self.keeper.store)

    def owner(self, conversation_id: str) -> str | None:
        """Whose conversation this is: the live one's owner, else the stored one's (None:
        unknown). The id is the page's secret, as when a turn resumes it.

        Args:
            conversation_id: The page's conversation id.
        """
        session = self.registry.get(conversation_id)
        if session is not None and session.owner is not None:
            return session.owner
        return self.keeper.store.owner_of(conversation_id)

    def fork(self, owner: str, conversation_id: str, at: int, chat: list[Message]) -> bool:
        """Start a branch parting at message `at` of the chat shown, and show it; the turn
        that follows is saved into it. Returns False when it is not stored (nothing kept).

        Args:
            owner: Whose conversation.
            conversation_id: Which conversation.
            at: The first message that differs (the edited one, or the answer made again).
            chat: The chat as the page shows it (the part before `at` is kept).
        """
        kept = self.keeper.clean(chat[:at])
        return self.tree.fork(owner, conversation_id, at, kept) is not None

    def keep_answer(self, conversation_id: str, chat: list[Message]) -> bool:
        """The last answer of `chat` stays as a version: a branch starts where it starts,
        for the answer made again. Returns False when there is no answer or nothing stored.

        Args:
            conversation_id: Which conversation.
            chat: The chat as stored, ending with the answer to keep.
        """
        at = _last_answer_at(chat)
        owner = self.owner(conversation_id) if at is not None else None
        if at is None or owner is None:
            return False
        return self.fork(owner, conversation_id, at, chat)

    def take_back(self, conversation_id: str) -> list[Message] | None:
        """Undo the branch an edit or a Retry started when its turn was refused before it
        ran: no version is left behind and the branch it came from is shown again (its chat
        is returned). None when the branch shown is not such a branch. The caller lets the
        live agent go (`follow`) once its claim is released when the agent may remember
        another path (an edit made it forget its last turn; a Retry leaves it as it was).

        Args:
            conversation_id: Which conversation.
        """
        owner = self.owner(conversation_id)
        if owner is None or not self.tree.take_back(owner, conversation_id):
            return None
        record = self.keeper.find(owner, conversation_id)
        return self.keeper.chat(record) if record is not None else []

    def versions(self, owner: str, conversation_id: str) -> list[dict[str, Any]]:
        """The messages of the branch shown that have versions, for the page's switchers:
        `position`, `current`, `total`, `role`, and `turn` (the person's turn it belongs to,
        or for an answer the turn it answers, from 0).

        Args:
            owner: Whose conversation.
            conversation_id: Which conversation.
        """
        found = self.tree.versions(owner, conversation_id)
        if not found:
            return []
        chat = self.tree.active_path(owner, conversation_id)
        return [{**asdict(v), **_place(chat, v.position)} for v in found if v.position <= len(chat)]

    def switch(
        self, owner: str, conversation_id: str, position: int, step: int
    ) -> list[Message] | None:
        """Show the previous (`step` -1) or next (1) version of message `position`; the live
        agent is let go so the next turn remembers that branch. Returns the chat now shown,
        or None when nothing changed.

        Args:
            owner: Whose conversation.
            conversation_id: Which conversation.
            position: The message whose version changes.
            step: -1 or 1.
        """
        if not self.tree.switch(owner, conversation_id, position, step):
            return None
        self.follow(conversation_id)
        record = self.keeper.find(owner, conversation_id)
        return self.keeper.chat(record) if record is not None else []

    def show_match(self, owner: str, conversation_id: str, query: str) -> bool:
        """Before a conversation found by a search opens: show the branch holding the hit.

        Args:
            owner: Whose conversation.
            conversation_id: Which conversation.
            query: The search words.
        """
        if not query.strip() or not self.tree.show_match(owner, conversation_id, query):
            return False
        self.follow(conversation_id)
        return True

    def follow(self, conversation_id: str) -> None:
        """Let the live agent go (it remembers another branch); idle ones only.

        Args:
            conversation_id: Which conversation.
        """
        session = self.registry.get(conversation_id)
        if session is not None and not session.busy:
            self.keeper.followed.add(conversation_id)  # before: its next turn may open now
            self.registry.evict(conversation_id, "another branch is shown")


def active_path_messages(
    keeper: ConversationKeeper, owner: str, conversation_id: str
) -> list[Message]:
    """The messages of the branch shown, safe to show (for exports and shares).

    Args:
        keeper: The app's conversation keeper.
        owner: Whose conversation (someone else's reads as empty).
        conversation_id: Which conversation.
    """
    record = keeper.find(owner, conversation_id)
    return keeper.chat(record) if record is not None else []


def answer_keeper(
    keeper: ConversationKeeper | None, registry: SessionRegistry
) -> Callable[[Session, list[Message]], None] | None:
    """What keeps a stopped turn's answer as a version when a Retry waited for it
    (`smolui.turns.retry_queue.queued_retry`); None when nothing is stored.

    Args:
        keeper: The app's conversation keeper (None: no store).
        registry: The live conversations.
    """
    if keeper is None:
        return None
    branches = Branches(keeper, registry)

    def keep(session: Session, chat: list[Message]) -> None:
        try:
            branches.keep_answer(session.id, chat)
        except Exception:  # the store is unreachable: the retry still runs, as before
            logger.warning("could not keep a stopped answer as a version", exc_info=True)

    return keep


def _last_answer_at(chat: list[Message]) -> int | None:
    """Where the answer to the last of the person's messages starts (None: not answered)."""
    for index in range(len(chat) - 1, -1, -1):
        if chat[index].get("role") == "user":
            return index + 1 if index + 1 < len(chat) else None
    return None


def _place(chat: list[Message], position: int) -> dict[str, Any]:
    """Where the page finds message `position`: its role and the person's turn it is in
    (an answer: the turn it answers), counting the runs of the person's messages. A branch
    just started ends before it: its message is the one being sent or answered now."""
    previous = chat[position - 1].get("role") if 0 < position <= len(chat) else None
    if position < len(chat):
        role = "user" if chat[position].get("role") == "user" else "assistant"
    else:
        role = "assistant" if previous == "user" else "user"
    turns, before = 0, None
    for message in chat[:position]:
        now = message.get("role")
        if now == "user" and before != "user":
            turns += 1
        before = now
    starts = role == "user" and previous != "user"
    return {"role": role, "turn": turns if starts else turns - 1}


__all__ = ["Branches", "active_path_messages", "answer_keeper"]
