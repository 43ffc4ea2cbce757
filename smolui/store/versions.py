"""Version-checked saves: a save says which version of the conversation it was based on.

Several replicas may hold the same conversation live (a page that failed over, a reload that
landed on another replica). Each stored conversation carries a version (`revision`, counted
up by every save); a save based on an older version is refused with `StaleConversationError`,
and the writer merges what it has with what is stored (`merge`) and saves again. So a save
never overwrites messages another replica added. A conversation opened from the store is
based on the version it was opened from (`CheckedSaves.based_on`).
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from smolui.store.conversations import ConversationStore

ATTEMPTS = 20  # merges in a row before a save gives up (the keeper retries it later)


class StaleConversationError(RuntimeError):
    """The conversation changed since the version a save was based on; nothing was written.

    Args:
        conversation_id: Which conversation.
        revision: Its version now.
    """

    def __init__(self, conversation_id: str, revision: int):
        super().__init__(
            f"conversation {conversation_id[:8]}… was saved elsewhere (now at version "
            f"{revision}); merge with what is stored and save again"
        )
        self.conversation_id = conversation_id
        self.revision = revision


@dataclass(frozen=True)
class _Agreed:
    """What one writer and the store last agreed on."""

    revision: int
    mine: tuple[list[Any], list[Any]]  # the writer's messages and steps at that save
    written: tuple[list[Any], list[Any]]  # what was stored (mine merged with others')


class CheckedSaves:
    """Saves conversations with `save_checked`, merging with what another writer stored.

    Remembers, per live conversation (any object a weak reference can hold), the version it
    last saved and what it wrote; a later save merges against that, so messages another
    replica added stay stored even though this writer's page never showed them.
    """

    def __init__(self) -> None:
        self._agreed: weakref.WeakKeyDictionary[Any, _Agreed] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def based_on(
        self, key: Any, revision: int, messages: Sequence[Any], steps: Sequence[Any]
    ) -> None:
        """The live conversation starts from this stored version (it was opened from the
        store): its next save is based on it, so what it removes from that version (a paused
        step shown again, a retried answer) stays removed, while what another writer adds
        after it is kept.

        Args:
            key: The live conversation.
            revision: The stored version it was opened from.
            messages: That version's chat.
            steps: That version's memory steps (as data).
        """
        stored = (list(messages), list(steps))
        with self._lock:
            self._agreed[key] = _Agreed(revision, stored, stored)

    def save(
        self,
        store: ConversationStore,
        key: Any,
        owner: str,
        conversation_id: str,
        *,
        messages: list[dict[str, Any]],
        memory: dict[str, Any] | None,
        **fields: Any,
    ) -> tuple[int | None, dict[str, Any] | None]:
        """Save one conversation; returns its new version (None: someone else's id) and the
        memory written (merged).

        Args:
            store: The conversation store.
            key: The live conversation (its saves run one at a time).
            owner: Its owner.
            conversation_id: Its id.
            messages: The chat as this writer has it.
            memory: The agent's memory as data as this writer has it.
            **fields: The other fields of `ConversationStore.save`.

        Raises:
            StaleConversationError: Other writers kept saving for `ATTEMPTS` merges in a row.
        """
        steps = list(memory["steps"]) if memory is not None else []
        with self._lock:
            agreed = self._agreed.get(key)
        base = agreed.revision if agreed is not None else None
        theirs = agreed.written if agreed is not None else None
        for _ in range(ATTEMPTS):
            out_messages, out_steps = self._merged(agreed, messages, steps, theirs)
            out_memory = None if memory is None else {**memory, "steps": out_steps}
            try:
                revision = store.save_checked(owner, conversation_id, base_revision=base,
                                              messages=out_messages, memory=out_memory,
                                              **fields)  # fmt: skip
            except StaleConversationError:
                record = store.get(owner, conversation_id)
                base = record.revision if record is not None else None
                stored_steps = (record.memory or {}).get("steps", []) if record else []
                theirs = (record.messages, list(stored_steps)) if record else ([], [])
                continue
            if revision is not None:
                with self._lock:
                    self._agreed[key] = _Agreed(revision, (list(messages), steps),
                                                (out_messages, out_steps))  # fmt: skip
            return revision, out_memory
        raise StaleConversationError(conversation_id, base or 0)

    @staticmethod
    def _merged(
        agreed: _Agreed | None,
        messages: list[Any],
        steps: list[Any],
        theirs: tuple[list[Any], list[Any]] | None,
    ) -> tuple[list[Any], list[Any]]:
        if theirs is None:  # nothing stored that this writer knows of: a new conversation
            return messages, steps
        if agreed is not None and theirs is agreed.written and agreed.written == agreed.mine:
            return messages, steps  # nobody else wrote: what this writer has is the whole
        base = agreed.mine if agreed is not None else (None, None)
        return merge(base[0], messages, theirs[0]), merge(base[1], steps, theirs[1])


def merge(base: Sequence[Any] | None, mine: Sequence[Any], theirs: Sequence[Any]) -> list[Any]:
    """Mine and theirs in one list, losing what neither side removed.

    `base` is what this writer's list was when it last agreed with the store (None: unknown,
    as after a resume: then the part both share from the start stands in for it). Items of
    `theirs` that `base` lacks were added by another writer and are kept; items this writer
    removed since `base` (an undo, a retried answer) stay removed.

    Args:
        base: This writer's list at its last save (None: unknown).
        mine: This writer's list now.
        theirs: The stored list now.
    """
    if base is None:
        base = theirs[: _shared_start(mine, theirs)]
    base_keys = {_key(item) for item in base}
    added = [item for item in theirs if _key(item) not in base_keys]  # by the other writer
    added_keys = {_key(item) for item in added}
    if _shared_start(base, mine) == len(base):  # mine only appended: theirs, then my news
        return list(theirs) + [item for item in mine[len(base) :] if _key(item) not in added_keys]
    mine_keys = {_key(item) for item in mine}  # mine changed its tail: mine, then their news
    return list(mine) + [item for item in added if _key(item) not in mine_keys]


def _shared_start(first: Sequence[Any], second: Sequence[Any]) -> int:
    """How many items the two lists share from the start."""
    count = 0
    for one, other in zip(first, second, strict=False):
        if one != other:
            break
        count += 1
    return count


def _key(item: Any) -> str:
    """An item as comparable text (chat messages and memory steps are JSON data)."""
    return json.dumps(item, sort_keys=True, default=str)


__all__ = ["CheckedSaves", "StaleConversationError", "merge"]
