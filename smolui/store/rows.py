"""Writing a conversation's chat and memory as rows: only the rows that changed.

A turn adds a few messages and steps at the end of a long conversation; rewriting every row
would make each save cost as much as the whole conversation. `RowWriter` remembers what it
last wrote for each conversation (and at which revision of it); the next save compares the
new lists with that, deletes the rows from the first difference on, and inserts the rest.
A conversation it does not remember, or one another process saved since, is rewritten whole.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, select, text
from sqlalchemy.orm import Session

from smolui.store import json_codec
from smolui.store.schema import ChatMessageRow, MemoryStepRow

REMEMBERED = 256  # conversations whose last written rows are kept in memory


class RowWriter:
    """Writes chat messages and memory steps as rows, only those that changed.

    Args:
        remembered: Conversations whose last written rows are kept to compare with.
    """

    def __init__(self, remembered: int = REMEMBERED):
        self.remembered = remembered
        self._written: OrderedDict[str, tuple[int, int, list[Any], list[Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def write(
        self,
        session: Session,
        conversation_id: str,
        revision: int,
        messages: Sequence[Any],
        steps: Sequence[Any],
        branch: int = 0,
    ) -> None:
        """Bring the rows of one branch of a conversation to `messages` and `steps` (in
        `session`'s transaction, which holds the conversation's row lock).

        Args:
            session: The open database session.
            conversation_id: Which conversation.
            revision: The conversation's revision before this save.
            messages: The whole chat.
            steps: The whole memory, one data dict per step.
            branch: Which branch of the conversation (`smolui.store.branches`).
        """
        with self._lock:
            known = self._written.get(conversation_id)
        fresh = known is None or known[0] != revision or known[1] != branch
        old_messages, old_steps = ([], []) if fresh else (known[2], known[3])
        rows = (conversation_id, branch)
        _sync(session, ChatMessageRow, rows, old_messages, messages, fresh)
        _sync(session, MemoryStepRow, rows, old_steps, steps, fresh)
        with self._lock:
            self._written[conversation_id] = (revision + 1, branch, list(messages), list(steps))
            self._written.move_to_end(conversation_id)
            while len(self._written) > self.remembered:
                self._written.popitem(last=False)

    def forget(self, conversation_id: str | None = None) -> None:
        """Compare nothing with what was written (after a failed save, or a deletion).

        Args:
            conversation_id: Which conversation (None: every one).
        """
        with self._lock:
            if conversation_id is None:
                self._written.clear()
            else:
                self._written.pop(conversation_id, None)


def read_rows(session: Session, model: type, conversation_id: str, branch: int = 0) -> list[Any]:
    """The data of one conversation branch's rows of `model`, in order. The database joins
    them into one JSON array, decoded once (a long conversation has hundreds of rows) by
    `json_codec` (non-finite floats come back as floats).

    Args:
        session: The open database session.
        model: `ChatMessageRow` or `MemoryStepRow`.
        conversation_id: Which conversation.
        branch: Which of its branches.

    Raises:
        ValueError: A row is not valid JSON.
    """
    where, values = "conversation_id = :c AND branch = :b", {"c": conversation_id, "b": branch}
    table, dialect = model.__tablename__, session.get_bind().dialect.name
    if dialect == "sqlite":  # rows hold JSON text: joined as [position, data] pairs, decoded
        joined = text(  # here (group_concat's order is not guaranteed: sorted after)
            "SELECT '[' || group_concat('[' || position || ',' || data || ']', ',') || ']' "
            f"FROM {table} WHERE {where}"
        )
        raw = session.execute(joined, values).scalar()
        return (
            [data for _, data in sorted(json_codec.loads(raw), key=lambda p: p[0])] if raw else []
        )
    if dialect == "postgresql":  # as text: decoded here, like what `json_codec` wrote
        joined = text(f"SELECT json_agg(data ORDER BY position)::text FROM {table} WHERE {where}")
        raw = session.execute(joined, values).scalar()
        return list(json_codec.loads(raw)) if raw else []
    statement = (
        select(model.data)
        .where(model.conversation_id == conversation_id, model.branch == branch)
        .order_by(model.position)
    )
    return list(session.scalars(statement).all())


def _sync(
    session: Session,
    model: type,
    key: tuple[str, int],
    old: Sequence[Any],
    new: Sequence[Any],
    fresh: bool,
) -> None:
    """Delete the rows of one branch (`key`: conversation id, branch) from the first
    difference between `old` and `new` on, insert the rest of `new` (every row when `fresh`)."""
    conversation_id, branch = key
    start = 0
    if not fresh:
        limit = min(len(old), len(new))
        while start < limit and (old[start] is new[start] or old[start] == new[start]):
            start += 1
        if start == len(old) == len(new):
            return
    drop = delete(model).where(model.conversation_id == conversation_id, model.branch == branch)
    if fresh:
        session.execute(drop)
    elif start < len(old):  # a changed tail (an edit, an undo); appending deletes nothing
        session.execute(drop.where(model.position >= start))
    rows = [
        {"conversation_id": conversation_id, "branch": branch, "position": position, "data": item}
        for position, item in enumerate(new[start:], start)
    ]
    if rows:
        session.execute(insert(model), rows)


__all__ = ["RowWriter", "read_rows"]
