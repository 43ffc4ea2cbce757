"""The tables: conversations (chat, memory, turn state), their uploaded files (and the text
extracted from them, for search), and usage.

The migrations in `smolui/store/migrations` create exactly these; a change here needs a new
migration (`alembic revision` against a scratch database, see the README).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

TITLE_CHARS = 200
MODEL_CHARS = 300


class Base(DeclarativeBase):
    """Declarative base of the store's tables."""


class Conversation(Base):
    """One conversation, as its owner sees it and as its agent remembers it."""

    __tablename__ = "conversations"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    owner: Mapped[str] = mapped_column(String(128), index=True)
    title: Mapped[str] = mapped_column(String(TITLE_CHARS), default="New conversation")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    # Name of the conversation's folders in the data folder (uploads, memory images). Not the
    # id: folder paths reach the model and the page, the id must stay a secret.
    folder: Mapped[str] = mapped_column(String(64))
    # Before migration 0004 the chat and the memory were kept whole here; now one row per
    # message (`ChatMessageRow`) and per step (`MemoryStepRow`), so a save writes only the
    # rows that changed. These two stay empty.
    messages: Mapped[Any] = mapped_column(JSON, default=list)
    memory: Mapped[Any] = mapped_column(JSON, nullable=True)
    memory_version: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: none
    revision: Mapped[int] = mapped_column(Integer, default=0)  # counts saves
    turn_state: Mapped[str] = mapped_column(String(16), default="idle")
    search_text: Mapped[str] = mapped_column(Text, default="")  # for full-text search
    # The model spec picked for it (`--models`); None: the app's default model.
    model: Mapped[str | None] = mapped_column(String(MODEL_CHARS), nullable=True)
    # The branch shown and saved to (`ConversationBranch`, migration 0008).
    active_branch: Mapped[int] = mapped_column(Integer, default=0)

    uploads: Mapped[list[Upload]] = relationship(
        back_populates="conversation", cascade="all, delete-orphan", passive_deletes=True
    )


class Upload(Base):
    """A file the owner attached; the bytes live in the data folder."""

    __tablename__ = "uploads"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    conversation_id: Mapped[str] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(255))
    kind: Mapped[str] = mapped_column(String(32))
    size: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    pages: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rows: Mapped[int | None] = mapped_column(Integer, nullable=True)
    path: Mapped[str] = mapped_column(String(512))  # relative to the conversation's folder
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    conversation: Mapped[Conversation] = relationship(back_populates="uploads")
    # Written with the upload, read only by search (in SQL); deleted with it.
    texts: Mapped[list[UploadText]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True
    )


class UploadText(Base):
    """A piece of the text extracted from an uploaded document, kept for search only.

    A document's text is split into pieces (`smolui.store.search.document_pieces`) because
    PostgreSQL indexes at most 1 MB of words per value.
    """

    __tablename__ = "upload_texts"

    # An integer key: SQLite's full-text index refers to it, and VACUUM keeps it.
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    upload_id: Mapped[int] = mapped_column(ForeignKey("uploads.id", ondelete="CASCADE"), index=True)
    conversation_id: Mapped[str] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), index=True
    )
    position: Mapped[int] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text)


class ChatMessageRow(Base):
    """One message of a conversation's chat, as the page renders it."""

    __tablename__ = "conversation_messages"

    conversation_id: Mapped[str] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), primary_key=True
    )
    branch: Mapped[int] = mapped_column(Integer, primary_key=True, default=0)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[Any] = mapped_column(JSON)


class MemoryStepRow(Base):
    """One step of a conversation's agent memory (`agents.memory.io` data of one step)."""

    __tablename__ = "memory_steps"

    conversation_id: Mapped[str] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), primary_key=True
    )
    branch: Mapped[int] = mapped_column(Integer, primary_key=True, default=0)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[Any] = mapped_column(JSON)


class ConversationBranch(Base):
    """One path through a conversation's tree of messages, kept whole from its first message.

    A branch parts from its `parent` at message `fork`: the messages before it are the
    parent's, the one at `fork` differs (an edited message, or another answer).
    """

    __tablename__ = "conversation_branches"

    conversation_id: Mapped[str] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), primary_key=True
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    parent: Mapped[int | None] = mapped_column(Integer, nullable=True)
    fork: Mapped[int] = mapped_column(Integer, default=0)
    # When it was last shown: of the branches through one version, the last seen is shown.
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class UsageEvent(Base):
    """Usage counted against a user's limits (turns, model tokens, upload bytes)."""

    __tablename__ = "usage_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    subject: Mapped[str] = mapped_column(String(160))  # an owner id, "key:..." or "ip:..."
    kind: Mapped[str] = mapped_column(String(16))  # "turn", "tokens", "upload_bytes"
    amount: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
