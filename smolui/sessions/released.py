"""Conversations evicted before their first turn, remembered so they come back as themselves.

Such a conversation is not in the conversation store yet (nothing was said), so without its
id, owner, folder and model its next message would start a conversation nobody owns:
answered, never saved. `ReleasedList` keeps them in memory, bounded per owner first (a flood
of page opens or "New chat" clicks pushes out the flooder's own entries, not other visitors')
and in total. A `ReleasedStore` (the conversation store's, `smolui.store.released`) keeps the
same list across restarts, with the same caps.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

RELEASED_PER_OWNER = 64  # one owner's remembered conversations: more pushes out its oldest
RELEASED_KEPT = 4096  # everyone's together: more pushes out the oldest of all


@dataclass(frozen=True)
class Released:
    """What an evicted conversation with no turn yet needs to come back as itself.

    Args:
        owner: Whose conversation it is.
        folder: Its upload and media folders' name.
        model: The model spec it was to use (None: the app's default).
    """

    owner: str
    folder: str
    model: str | None


class ReleasedStore(Protocol):
    """Where released conversations outlive the process (the conversation store)."""

    def keep(self, conversation_id: str, owner: str, folder: str, model: str | None) -> None:
        """Remember one (replacing an earlier entry for the same id)."""

    def find(self, conversation_id: str) -> tuple[str, str, str | None] | None:
        """Its `(owner, folder, model)`, or None when it is not remembered."""

    def forget(self, conversation_id: str) -> None:
        """Drop it (it is live again)."""


class ReleasedList:
    """Released conversations in memory, bounded per owner and in total. Not thread-safe: the
    registry calls it under its lock.

    Args:
        per_owner: Most entries one owner keeps; past it that owner's oldest goes.
        total: Most entries of all owners; past it the oldest of all goes.
    """

    def __init__(self, per_owner: int = RELEASED_PER_OWNER, total: int = RELEASED_KEPT):
        if per_owner < 1 or total < 1:
            raise ValueError("the released-conversation caps must be at least 1")
        self.per_owner = per_owner
        self.total = total
        self._entries: OrderedDict[str, Released] = OrderedDict()
        self._by_owner: dict[str, OrderedDict[str, None]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, conversation_id: object) -> bool:
        return conversation_id in self._entries

    def owners(self) -> int:
        """How many owners have entries (for the bound tests and metrics)."""
        return len(self._by_owner)

    def keep(self, conversation_id: str, released: Released) -> None:
        """Remember one, as the newest; push out what the caps no longer allow.

        Args:
            conversation_id: The conversation's id.
            released: Its owner, folder and model.
        """
        self.take(conversation_id)
        self._entries[conversation_id] = released
        mine = self._by_owner.setdefault(released.owner, OrderedDict())
        mine[conversation_id] = None
        while len(mine) > self.per_owner:
            self.take(next(iter(mine)))
        while len(self._entries) > self.total:
            self.take(next(iter(self._entries)))

    def take(self, conversation_id: str) -> Released | None:
        """Remove and return one (None: not remembered).

        Args:
            conversation_id: The conversation's id.
        """
        released = self._entries.pop(conversation_id, None)
        if released is None:
            return None
        mine = self._by_owner[released.owner]
        del mine[conversation_id]
        if not mine:
            del self._by_owner[released.owner]
        return released


class DeferredReleasedStore:
    """A `ReleasedStore` made on first use: the database's modules load after the page serves,
    and eviction first happens after that.

    Args:
        make: Builds the real one (e.g. the conversation store's `StoreReleased`).
    """

    def __init__(self, make: Callable[[], ReleasedStore]):
        self._make = make
        self._store: ReleasedStore | None = None
        self._lock = threading.Lock()

    def _real(self) -> ReleasedStore:
        with self._lock:
            if self._store is None:
                self._store = self._make()
            return self._store

    def keep(self, conversation_id: str, owner: str, folder: str, model: str | None) -> None:
        """Remember one (see `ReleasedStore.keep`)."""
        self._real().keep(conversation_id, owner, folder, model)

    def find(self, conversation_id: str) -> tuple[str, str, str | None] | None:
        """Its `(owner, folder, model)`, or None (see `ReleasedStore.find`)."""
        return self._real().find(conversation_id)

    def forget(self, conversation_id: str) -> None:
        """Drop it (see `ReleasedStore.forget`)."""
        self._real().forget(conversation_id)
