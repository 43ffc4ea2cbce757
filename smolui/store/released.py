"""Conversations evicted before their first turn, kept in the database across restarts.

`smolui.sessions.released` explains why they are remembered; this is its `ReleasedStore`.
The caps are the in-memory list's: per owner first (a flood of one owner's page opens pushes
out its own oldest entries, never another visitor's), then in total.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, Integer, String, delete, func, insert, select
from sqlalchemy.orm import Mapped, mapped_column

from smolui.store.schema import MODEL_CHARS, Base

logger = logging.getLogger(__name__)

PER_OWNER = 64  # as `smolui.sessions.released.RELEASED_PER_OWNER`
TOTAL = 100_000  # a row is ~200 bytes: about 20 MB at the cap, whatever the flood


class ReleasedRow(Base):
    """One evicted conversation with no turn yet: whose it is and where its folders are."""

    __tablename__ = "released_conversations"

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)  # age
    conversation_id: Mapped[str] = mapped_column(String(64), unique=True)
    owner: Mapped[str] = mapped_column(String(128), index=True)
    folder: Mapped[str] = mapped_column(String(64))
    model: Mapped[str | None] = mapped_column(String(MODEL_CHARS), nullable=True)
    released_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class StoreReleased:
    """The `smolui.sessions.released.ReleasedStore` of the conversation database.

    Args:
        engine: Returns the store's (migrated) SQLAlchemy engine; called on each use, so a
            store that opens after the page serves is found once it is open.
        per_owner: Most entries one owner keeps.
        total: Most entries of all owners.
    """

    def __init__(self, engine: Callable[[], Any], per_owner: int = PER_OWNER, total: int = TOTAL):
        if per_owner < 1 or total < 1:
            raise ValueError("the released-conversation caps must be at least 1")
        self._engine = engine
        self.per_owner = per_owner
        self.total = total

    def keep(self, conversation_id: str, owner: str, folder: str, model: str | None) -> None:
        """Remember one as the newest, then trim the owner's and everyone's oldest.

        Args:
            conversation_id: The conversation's id.
            owner: Whose it is.
            folder: Its folders' name.
            model: Its model spec (None: the default).
        """
        row = {"conversation_id": conversation_id, "owner": owner, "folder": folder,
               "model": model, "released_at": datetime.now(UTC)}  # fmt: skip
        with self._engine().begin() as connection:
            connection.execute(
                delete(ReleasedRow).where(ReleasedRow.conversation_id == conversation_id)
            )
            connection.execute(insert(ReleasedRow), row)
            _trim(connection, ReleasedRow.owner == owner, self.per_owner)
            _trim(connection, None, self.total)

    def find(self, conversation_id: str) -> tuple[str, str, str | None] | None:
        """Its `(owner, folder, model)`, or None.

        Args:
            conversation_id: The conversation's id.
        """
        query = select(ReleasedRow.owner, ReleasedRow.folder, ReleasedRow.model).where(
            ReleasedRow.conversation_id == conversation_id
        )
        with self._engine().connect() as connection:
            found = connection.execute(query).first()
        return tuple(found) if found is not None else None

    def forget(self, conversation_id: str) -> None:
        """Drop it (it is live again).

        Args:
            conversation_id: The conversation's id.
        """
        with self._engine().begin() as connection:
            connection.execute(
                delete(ReleasedRow).where(ReleasedRow.conversation_id == conversation_id)
            )

    def count(self, owner: str | None = None) -> int:
        """How many are kept (one owner's, or everyone's)."""
        query = select(func.count()).select_from(ReleasedRow)
        if owner is not None:
            query = query.where(ReleasedRow.owner == owner)
        with self._engine().connect() as connection:
            return connection.execute(query).scalar_one()


def _trim(connection: Any, where: Any, keep: int) -> None:
    """Delete the oldest rows matching `where` (None: all) beyond the newest `keep`."""
    newest = select(ReleasedRow.seq).order_by(ReleasedRow.seq.desc()).offset(keep).limit(1)
    if where is not None:
        newest = newest.where(where)
    cutoff = connection.execute(newest).scalar_one_or_none()
    if cutoff is None:
        return
    doomed = ReleasedRow.seq <= cutoff
    connection.execute(delete(ReleasedRow).where(doomed if where is None else doomed & where))
