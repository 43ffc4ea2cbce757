"""API keys and API threads, kept in the conversation database.

Only a key's SHA-256 digest is stored, with its user and a short prefix to tell keys apart;
`smolui.auth.keys` makes keys and digests. A thread maps the digest of the messages an API
client sends before its new one to the conversation those messages belong to, so a client
that resends the whole chat each time (as chat-completion clients do) continues it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime, Integer, String, delete, func, insert, select, update
from sqlalchemy.orm import Mapped, mapped_column

from smolui.store.schema import Base


class ApiKeyRow(Base):
    """One API key: its digest, whose it is, and whether it was revoked."""

    __tablename__ = "api_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user: Mapped[str] = mapped_column(String(128))
    digest: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    prefix: Mapped[str] = mapped_column(String(24))  # the key's first characters, to name it
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ApiThreadRow(Base):
    """Messages an API client sent so far (their digest) -> the conversation they continue."""

    __tablename__ = "api_threads"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner: Mapped[str] = mapped_column(String(128))
    conversation_id: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass(frozen=True)
class KeyInfo:
    """A key as `list` shows it (never the key itself).

    Args:
        prefix: Its first characters.
        user: Whose key it is.
        created: When it was made.
        revoked: When it was revoked (None: it works).
    """

    prefix: str
    user: str
    created: datetime
    revoked: datetime | None


class StoreKeyRows:
    """The `smolui.auth.keys.KeyRows` of the store's database.

    Args:
        engine: The store's (migrated) SQLAlchemy engine.
    """

    def __init__(self, engine: Any):
        self.engine = engine

    def add(self, user: str, digest: str, prefix: str) -> None:
        """Keep a new key's digest.

        Args:
            user: Whose key.
            digest: The key's SHA-256 hex digest.
            prefix: The key's first characters.
        """
        row = {"user": user, "digest": digest, "prefix": prefix, "created_at": _now()}
        with self.engine.begin() as connection:
            connection.execute(insert(ApiKeyRow), row)

    def user_for(self, digest: str) -> str | None:
        """The user of the working key with this digest, or None.

        Args:
            digest: A presented key's digest.
        """
        query = select(ApiKeyRow.user).where(
            ApiKeyRow.digest == digest, ApiKeyRow.revoked_at.is_(None)
        )
        with self.engine.connect() as connection:
            return connection.execute(query).scalar_one_or_none()

    def any_active(self) -> bool:
        """True when at least one key works."""
        query = select(func.count()).select_from(ApiKeyRow).where(ApiKeyRow.revoked_at.is_(None))
        with self.engine.connect() as connection:
            return bool(connection.execute(query).scalar_one())

    def list(self) -> list[KeyInfo]:
        """Every key, oldest first."""
        columns = (ApiKeyRow.prefix, ApiKeyRow.user, ApiKeyRow.created_at, ApiKeyRow.revoked_at)
        with self.engine.connect() as connection:
            rows = connection.execute(select(*columns).order_by(ApiKeyRow.id)).all()
        return [KeyInfo(*row) for row in rows]

    def revoke(self, prefix: str) -> int:
        """Revoke the working keys with this prefix; returns how many.

        Args:
            prefix: A key's prefix as `list` shows it.
        """
        query = (
            update(ApiKeyRow)
            .where(ApiKeyRow.prefix == prefix, ApiKeyRow.revoked_at.is_(None))
            .values(revoked_at=_now())
        )
        with self.engine.begin() as connection:
            return connection.execute(query).rowcount


class StoreThreads:
    """Which conversation an API client's messages so far belong to.

    Args:
        engine: The store's (migrated) SQLAlchemy engine.
    """

    def __init__(self, engine: Any):
        self.engine = engine

    def find(self, owner: str, digest: str) -> str | None:
        """The conversation `owner`'s messages with this digest belong to, or None.

        Args:
            owner: Who asks (a thread of someone else is never found).
            digest: The digest of the messages before the new one.
        """
        query = select(ApiThreadRow.conversation_id).where(
            ApiThreadRow.digest == digest, ApiThreadRow.owner == owner
        )
        with self.engine.connect() as connection:
            return connection.execute(query).scalar_one_or_none()

    def remember(self, owner: str, digest: str, conversation_id: str) -> None:
        """Messages with this digest continue `conversation_id` (kept once; later kept wins).

        Args:
            owner: Whose conversation.
            digest: The digest of the messages so far, the new answer included.
            conversation_id: The conversation.
        """
        with self.engine.begin() as connection:
            connection.execute(delete(ApiThreadRow).where(ApiThreadRow.digest == digest))
            connection.execute(insert(ApiThreadRow), {"digest": digest, "owner": owner,
                               "conversation_id": conversation_id, "created_at": _now()})  # fmt: skip


def _now() -> datetime:
    return datetime.now(UTC)
