"""Read-only share links: a snapshot of a conversation's chat, reachable by an unguessable token.

The token is shown once, to the owner who made the link; the database keeps only its SHA-256
digest (`shares`, migration 0009), so a copy of the database names no working link. A link
finds its snapshot until its owner revokes it (or deletes the conversation, which takes its
links with it); a revoked link is refused at the next request, nothing caches it.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    ForeignKey,
    String,
    Table,
    func,
    insert,
    select,
    update,
)

from smolui.store.schema import TITLE_CHARS, Base, Conversation

TOKEN_BYTES = 24  # 192 random bits: 32 URL-safe characters
MAX_TOKEN_CHARS = 128  # a longer "token" in a URL is not one of ours: not even hashed

SHARES = Table(
    "shares",
    Base.metadata,
    Column("token_hash", String(64), primary_key=True),
    Column(
        "conversation_id",
        String(64),
        ForeignKey("conversations.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("owner", String(128), nullable=False),
    Column("title", String(TITLE_CHARS), nullable=False),
    Column("snapshot", JSON, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
)


@dataclass(frozen=True)
class Share:
    """A link as its owner lists it (the token is not kept, so not here).

    Args:
        digest: The token's digest (names the link to its owner, opens nothing).
        created: When it was made (UTC).
        revoked: When it was taken back, or None while it works.
    """

    digest: str
    created: datetime
    revoked: datetime | None


@dataclass(frozen=True)
class SharedSnapshot:
    """What a working link shows.

    Args:
        title: The conversation's title when it was shared.
        snapshot: The chat as it was shared (`smolui.render.share_page.share_snapshot`).
    """

    title: str
    snapshot: Any


def token_digest(token: str) -> str:
    """The stored form of a token: its SHA-256, hex.

    Args:
        token: The token from a link.
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class ConversationShares:
    """Make, find, list and revoke the share links of owners' conversations.

    Args:
        engine: The store's migrated engine.
    """

    def __init__(self, engine: Any):
        self.engine = engine

    def create(
        self,
        owner: str,
        conversation_id: str,
        snapshot: Any,
        retitle: Callable[[str], str] | None = None,
    ) -> str | None:
        """A new link to `snapshot`; returns its token (shown once), or None when the owner
        has no such stored conversation.

        Args:
            owner: Who shares (must own the conversation).
            conversation_id: Which conversation.
            snapshot: What the link shows (JSON data).
            retitle: Makes the title the link shows from the conversation's (None: as is),
                so a title naming an attachment not shared does not name it.
        """
        token = secrets.token_urlsafe(TOKEN_BYTES)
        with self.engine.begin() as connection:
            title = connection.scalar(
                select(Conversation.title).where(
                    Conversation.id == conversation_id, Conversation.owner == owner
                )
            )
            if title is None:
                return None
            row = {
                "token_hash": token_digest(token), "conversation_id": conversation_id,
                "owner": owner, "title": retitle(title) if retitle else title,
                "snapshot": snapshot,
                "created_at": datetime.now(UTC),
            }  # fmt: skip
            connection.execute(insert(SHARES).values(**row))
        return token

    def find(self, token: str) -> SharedSnapshot | None:
        """What a link shows, or None (unknown, revoked, or not a token at all).

        Args:
            token: From the link.
        """
        if not token or len(token) > MAX_TOKEN_CHARS:
            return None
        query = select(SHARES.c.title, SHARES.c.snapshot).where(
            SHARES.c.token_hash == token_digest(token), SHARES.c.revoked_at.is_(None)
        )
        with self.engine.connect() as connection:
            row = connection.execute(query).first()
        return SharedSnapshot(row.title, row.snapshot) if row is not None else None

    def revoke(self, owner: str, conversation_id: str, digest: str | None = None) -> int:
        """Take back the owner's working links to a conversation (one, by its digest, or all);
        returns how many were revoked.

        Args:
            owner: Whose links (another owner's are never touched).
            conversation_id: Which conversation.
            digest: Only this link (`Share.digest`); None: every link to it.
        """
        query = update(SHARES).where(
            SHARES.c.owner == owner,
            SHARES.c.conversation_id == conversation_id,
            SHARES.c.revoked_at.is_(None),
        )
        if digest is not None:
            query = query.where(SHARES.c.token_hash == digest)
        with self.engine.begin() as connection:
            return connection.execute(query.values(revoked_at=datetime.now(UTC))).rowcount

    def list(self, owner: str, conversation_id: str) -> list[Share]:
        """The owner's links to a conversation, newest first, revoked ones included.

        Args:
            owner: Whose links.
            conversation_id: Which conversation.
        """
        query = (
            select(SHARES.c.token_hash, SHARES.c.created_at, SHARES.c.revoked_at)
            .where(SHARES.c.owner == owner, SHARES.c.conversation_id == conversation_id)
            .order_by(SHARES.c.created_at.desc())
        )
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
        return [Share(row.token_hash, row.created_at, row.revoked_at) for row in rows]

    def active(self, owner: str, conversation_id: str) -> int:
        """How many of the owner's links to a conversation work now.

        Args:
            owner: Whose links.
            conversation_id: Which conversation.
        """
        query = select(func.count()).where(
            SHARES.c.owner == owner,
            SHARES.c.conversation_id == conversation_id,
            SHARES.c.revoked_at.is_(None),
        )
        with self.engine.connect() as connection:
            return int(connection.scalar(query) or 0)


__all__ = ["SHARES", "ConversationShares", "Share", "SharedSnapshot", "token_digest"]
