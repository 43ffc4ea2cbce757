"""`ConversationStore`: conversations kept in a database, each served only to its owner.

Every read and write names the owner; a conversation id that is unknown, or that belongs to
someone else, reads as missing. The data folder holds each conversation's files in folders
named by the conversation's `folder`, never by its id. What it hands out (`StoredConversation`,
`ConversationSummary`, `UploadInfo`) is in `smolui.store.records`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from smolui.store import branches, search
from smolui.store.files import ConversationFiles
from smolui.store.records import (
    ConversationSummary,
    CorruptConversationError,
    StoredConversation,
    UploadInfo,
    as_utc,
    record_of,
)
from smolui.store.rows import RowWriter, read_rows
from smolui.store.schema import (
    MODEL_CHARS,
    TITLE_CHARS,
    ChatMessageRow,
    Conversation,
    ConversationBranch,
    MemoryStepRow,
    Upload,
    UploadText,
)
from smolui.store.versions import StaleConversationError

logger = logging.getLogger(__name__)

DEFAULT_TITLE = "New conversation"
# How often `get` reads a conversation whose rows do not add up before calling it damaged.
TORN_READ_ATTEMPTS = 3


class ConversationStore:
    """Conversations in a database, files in a data folder.

    Args:
        engine: A migrated SQLAlchemy engine (see `smolui.store.open_store`).
        data_dir: The data folder: uploads, media and memory images (see `ConversationFiles`).
        upload_root: Parent of the owners' upload folders (default: `data_dir/uploads`).
        media_root: Parent of the owners' media folders (default: `data_dir/media`).
    """

    def __init__(
        self,
        engine: Any,
        data_dir: str | Path,
        upload_root: str | Path | None = None,
        media_root: str | Path | None = None,
    ):
        self.engine = engine
        self.data_dir = Path(data_dir)
        self.files = ConversationFiles(data_dir, upload_root, media_root)
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self._rows = RowWriter()

    # -- folders ----------------------------------------------------------------------------

    @property
    def upload_root(self) -> Path:
        """Parent of every owner's upload folders."""
        return self.files.upload_root

    def upload_dir(self, folder: str, owner: str | None = None) -> Path:
        """A conversation's upload folder.

        Args:
            folder: The conversation's folder name.
            owner: Its owner (folders are kept per owner).
        """
        return self.files.upload_dir(folder, owner)

    def image_dir(self, folder: str) -> Path:
        """Where a conversation's memory images are kept.

        Args:
            folder: The conversation's folder name.
        """
        return self.files.image_dir(folder)

    # -- reading ----------------------------------------------------------------------------

    def get(self, owner: str, conversation_id: str) -> StoredConversation | None:
        """The conversation if it exists and belongs to `owner`, else None.

        Args:
            owner: Who asks.
            conversation_id: Which conversation.

        Raises:
            CorruptConversationError: The row exists but cannot be read back.
        """
        # Each read below sees what was committed when it ran (READ COMMITTED on PostgreSQL,
        # statement by statement on SQLite), so a save committing between two of them can pair
        # the row as it was with steps as they are now. A read that does not add up is read
        # again: the save that tore it has committed by then; damage that stays is reported.
        for attempt in range(1, TORN_READ_ATTEMPTS + 1):
            try:
                return self._read(owner, conversation_id)
            except CorruptConversationError:
                if attempt == TORN_READ_ATTEMPTS:
                    raise
        return None  # not reached: the last attempt returns or raises

    def _read(self, owner: str, conversation_id: str) -> StoredConversation | None:
        """One read of `get`, which it may repeat."""
        with self._sessions() as session:
            row = session.get(Conversation, conversation_id)
            if row is None or row.owner != owner:
                return None
            try:
                # The branch shown (`smolui.store.branches`): its whole path is its rows.
                branch = row.active_branch or 0
                messages = read_rows(session, ChatMessageRow, conversation_id, branch)
                steps = read_rows(session, MemoryStepRow, conversation_id, branch)
                return record_of(row, messages, steps)
            except (ValueError, TypeError, KeyError) as error:
                raise CorruptConversationError(
                    f"This conversation's stored data is damaged and cannot be opened ({error})."
                ) from None

    def owner_of(self, conversation_id: str) -> str | None:
        """Who owns a conversation (None: unknown). For server-side lookups only: an id the
        browser chose is always checked with `get(owner, id)` instead.

        Args:
            conversation_id: Which conversation.
        """
        with self._sessions() as session:
            return session.scalar(
                select(Conversation.owner).where(Conversation.id == conversation_id)
            )

    def list(self, owner: str, query: str = "", limit: int = 100) -> list[ConversationSummary]:
        """The owner's conversations, newest first; with `query`, only those whose title,
        messages or uploaded documents contain every word of it.

        Args:
            owner: Whose conversations.
            query: Words to search for ("" lists everything).
            limit: Most conversations returned.
        """
        columns = (Conversation.id, Conversation.title, Conversation.updated_at)
        statement = select(*columns).where(Conversation.owner == owner)
        condition = search.matching(self.engine.dialect.name, query)
        if condition is not None:
            statement = statement.where(condition)
        statement = statement.order_by(Conversation.updated_at.desc()).limit(limit)
        with self._sessions() as session:
            rows = session.execute(statement).all()
        return [ConversationSummary(r.id, r.title, as_utc(r.updated_at)) for r in rows]

    # -- writing ----------------------------------------------------------------------------

    def save(
        self,
        owner: str,
        conversation_id: str,
        *,
        folder: str,
        messages: list[dict[str, Any]],
        memory: dict[str, Any] | None,
        turn_state: str = "done",
        uploads: Sequence[UploadInfo] = (),
        forget_uploads: bool = False,
        model: str | None = None,
    ) -> bool:
        """Create or update a conversation, whatever version is stored (see `save_checked`
        for a save that must not overwrite another writer's). Returns False (and writes
        nothing) when the id belongs to another owner.

        Args:
            owner: Who it belongs to.
            conversation_id: Which conversation.
            folder: Its folder name in the data folder.
            messages: The chat as rendered.
            memory: The agent's memory as data.
            turn_state: The state of its last turn.
            uploads: Files attached since the last save.
            forget_uploads: Drop the uploads recorded so far first (the chat was cleared).
            model: The model spec the conversation uses (None: the app's default).
        """
        fields = dict(folder=folder, messages=messages, memory=memory, turn_state=turn_state,
                      uploads=uploads, forget_uploads=forget_uploads, model=model)  # fmt: skip
        return self._write(owner, conversation_id, None, **fields) is not None

    def save_checked(
        self, owner: str, conversation_id: str, *, base_revision: int | None, **fields: Any
    ) -> int | None:
        """Create or update a conversation only if it is still at `base_revision`. Returns
        its new version, or None (nothing written) when the id belongs to another owner.
        Only the messages and memory steps that changed since the last save are written
        (see `smolui.store.rows`).

        Args:
            owner: Who it belongs to.
            conversation_id: Which conversation.
            base_revision: The version this save was based on (None: the writer knows none,
                so only a new conversation is written).
            **fields: As for `save`.

        Raises:
            StaleConversationError: It was saved elsewhere since `base_revision`; merge with
                what `get` returns and save again (see `smolui.store.versions.merge`).
        """
        return self._write(owner, conversation_id, (base_revision,), **fields)

    def _write(
        self,
        owner: str,
        conversation_id: str,
        check: tuple[int | None] | None,
        *,
        folder: str,
        messages: list[dict[str, Any]],
        memory: dict[str, Any] | None,
        turn_state: str = "done",
        uploads: Sequence[UploadInfo] = (),
        forget_uploads: bool = False,
        model: str | None = None,
    ) -> int | None:
        """Write one conversation (checked against `check`'s version when given)."""
        now = datetime.now(UTC)
        steps = memory.get("steps", []) if memory is not None else []
        created = False
        try:
            with self._sessions.begin() as session:
                # The row lock orders the saves of one conversation: a second replica's save
                # waits here, then sees the version the first one wrote.
                if self.engine.dialect.name == "sqlite":  # no FOR UPDATE: a write takes the lock
                    session.execute(update(Conversation).where(Conversation.id == conversation_id)
                                    .values(revision=Conversation.revision))  # fmt: skip
                row = session.get(Conversation, conversation_id, with_for_update=True)
                if row is not None and row.owner != owner:
                    logger.warning("refused to save a conversation for an owner not its own")
                    return None
                if row is not None and check is not None and row.revision != check[0]:
                    raise StaleConversationError(conversation_id, row.revision)
                if row is None:
                    self._rows.forget(conversation_id)  # an id seen before must not match
                    row = Conversation(id=conversation_id, owner=owner, created_at=now,
                                       updated_at=now, folder=folder, revision=0,
                                       title=title_of(messages), messages=[])  # fmt: skip
                    session.add(row)
                    created = True
                    session.flush()  # the rows below reference it
                    branches.add_root(session, conversation_id, now)
                elif row.title == DEFAULT_TITLE:
                    row.title = title_of(messages)
                branch = row.active_branch or 0  # the branch shown (`smolui.store.branches`)
                self._rows.write(session, conversation_id, row.revision, messages, steps, branch)
                row.memory_version = memory.get("version") if memory is not None else None
                row.turn_state, row.updated_at = turn_state, now
                row.revision += 1
                row.model = model[:MODEL_CHARS] if model else None
                if forget_uploads:
                    session.execute(delete(UploadText).where(
                        UploadText.conversation_id == conversation_id))  # fmt: skip
                    row.uploads.clear()
                row.uploads.extend(_upload_row(u, conversation_id, now) for u in uploads)
                return row.revision
        except StaleConversationError:
            raise
        except IntegrityError:
            self._rows.forget(conversation_id)
            if created and check is not None:  # another replica created it at the same moment
                raise StaleConversationError(conversation_id, 0) from None
            raise
        except Exception:
            self._rows.forget(conversation_id)
            raise

    def rename(self, owner: str, conversation_id: str, title: str) -> bool:
        """Give a conversation a new title. Returns whether it was the owner's.

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
            title: The new title (trimmed; empty keeps the old one).
        """
        title = " ".join(str(title).split())[:TITLE_CHARS]
        if not title:
            return False
        statement = (
            update(Conversation)
            .where(Conversation.id == conversation_id, Conversation.owner == owner)
            .values(title=title)
        )
        with self._sessions.begin() as session:
            return session.execute(statement).rowcount > 0

    def delete(self, owner: str, conversation_id: str) -> bool:
        """Delete a conversation, its memory and its files. Returns whether it was the owner's.

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
        """
        return (
            self._delete_where(Conversation.owner == owner, Conversation.id == conversation_id) > 0
        )

    def delete_all(self, owner: str) -> int:
        """Delete every conversation of `owner` (and their files). Returns how many.

        Args:
            owner: Whose conversations.
        """
        return self._delete_where(Conversation.owner == owner)

    def purge_older_than(self, days: float, now: datetime | None = None) -> int:
        """Delete conversations not updated for `days` days (retention). Returns how many.

        Args:
            days: Age limit in days.
            now: The current time (UTC); default now.
        """
        cutoff = (now or datetime.now(UTC)) - timedelta(days=days)
        return self._delete_where(Conversation.updated_at < cutoff)

    def _delete_where(self, *conditions: Any) -> int:
        with self._sessions.begin() as session:
            columns = (Conversation.id, Conversation.owner, Conversation.folder)
            gone = session.execute(select(*columns).where(*conditions)).all()
            ids = select(Conversation.id).where(*conditions)
            for model in (UploadText, Upload, ChatMessageRow, MemoryStepRow, ConversationBranch):
                session.execute(delete(model).where(model.conversation_id.in_(ids)))
            session.execute(delete(Conversation).where(*conditions))
        for conversation_id, owner, folder in gone:
            self._rows.forget(conversation_id)
            self.files.delete(owner, folder)
        return len(gone)

    def session(self) -> Session:
        """A database session (for maintenance and tests)."""
        return self._sessions()

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()


def title_of(messages: list[dict[str, Any]]) -> str:
    """A title from the first thing the user wrote.

    Args:
        messages: The chat.
    """
    for message in messages:
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, str) and content.strip():
            text = " ".join(content.split())
            return text if len(text) <= 48 else text[:47] + "…"
    return DEFAULT_TITLE


def _upload_row(info: UploadInfo, conversation_id: str, now: datetime) -> Upload:
    texts = [UploadText(conversation_id=conversation_id, position=position, body=piece)
             for position, piece in enumerate(search.document_pieces(info.text))]  # fmt: skip
    return Upload(name=info.name[:255], kind=info.kind, size=info.size, sha256=info.sha256,
                  path=info.path, pages=info.pages, rows=info.rows, created_at=now,
                  texts=texts)  # fmt: skip


__all__ = ["ConversationStore", "title_of"]
