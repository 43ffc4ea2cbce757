"""What the conversation store hands out: a conversation as stored, a line of the list and what
is kept about an upload, plus the error for a conversation that cannot be read back.

`ConversationStore` (`smolui.store.conversations`) reads and writes them; `record_of` builds a
`StoredConversation` from its database rows and refuses rows that do not add up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from smolui.store.schema import Conversation


class CorruptConversationError(RuntimeError):
    """A stored conversation cannot be read back; other conversations are unaffected."""


@dataclass(frozen=True)
class UploadInfo:
    """What is kept about one uploaded file.

    Args:
        name: The name shown to the user.
        kind: "pdf", "docx", "text", "image", ...
        size: Bytes.
        sha256: Hex digest of the content.
        path: Where it is, relative to the conversation's upload folder.
        pages: Pages (documents), or None.
        rows: Rows (tables), or None.
        text: The text extracted from a document, kept (about its first megabyte) for
            search only: saved, never read back ("" in what `get` returns).
    """

    name: str
    kind: str
    size: int
    sha256: str
    path: str
    pages: int | None = None
    rows: int | None = None
    text: str = field(default="", repr=False)


@dataclass(frozen=True)
class StoredConversation:
    """One conversation as stored: its chat, its agent's memory and its files.

    Args:
        id: The conversation id.
        owner: Its owner's key.
        title: Shown in the conversation list.
        created: When it started (UTC).
        updated: When it last changed (UTC).
        folder: Name of its folders in the data folder.
        messages: The chat as the page renders it.
        memory: The agent's memory (`agents.memory.io` data), or None.
        turn_state: "idle", "running", "done", "stopped" or "failed".
        uploads: Its uploaded files.
        model: The model spec picked for it (None: the app's default).
        revision: Its version: how many saves it has had (see `ConversationStore.save_checked`).
    """

    id: str
    owner: str
    title: str
    created: datetime
    updated: datetime
    folder: str
    messages: list[dict[str, Any]]
    memory: dict[str, Any] | None
    turn_state: str
    uploads: list[UploadInfo] = field(default_factory=list)
    model: str | None = None
    revision: int = 0


@dataclass(frozen=True)
class ConversationSummary:
    """A line of the conversation list."""

    id: str
    title: str
    updated: datetime


def record_of(row: Conversation, messages: list[Any], steps: list[Any]) -> StoredConversation:
    """A conversation from its row and its branch's messages and memory steps.

    Args:
        row: Its `Conversation` row (with its uploads).
        messages: The chat messages of the branch shown, as stored.
        steps: The memory steps of that branch, as stored.

    Raises:
        ValueError: The rows do not add up.
    """
    if not all(isinstance(m, dict) for m in messages):
        raise ValueError("the stored chat is not a list of messages")
    if row.memory_version is None and steps:
        raise ValueError("memory steps are stored without a memory format")
    memory = None
    if row.memory_version is not None:
        memory = {"version": row.memory_version, "steps": steps}
    uploads = [UploadInfo(u.name, u.kind, u.size, u.sha256, u.path, u.pages, u.rows)
               for u in row.uploads]  # fmt: skip
    return StoredConversation(row.id, row.owner, row.title, as_utc(row.created_at),
                              as_utc(row.updated_at), row.folder, messages, memory,
                              row.turn_state, uploads, row.model, row.revision)  # fmt: skip


def as_utc(value: datetime) -> datetime:
    """A stored time as UTC: SQLite gives back naive datetimes; everything stored is UTC.

    Args:
        value: A time read from the database.
    """
    return value if value.tzinfo else value.replace(tzinfo=UTC)


__all__ = [
    "ConversationSummary",
    "CorruptConversationError",
    "StoredConversation",
    "UploadInfo",
    "as_utc",
    "record_of",
]
