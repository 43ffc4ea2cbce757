"""Files the agent's code wrote during a turn, kept with the conversation for download.

Each turn's files form a batch: the bytes are copied out of the code's working folder into
the data folder (`ConversationFiles.outputs_dir`), one row each in `output_files` (migration
0009). The batch's random key is what a download link carries, so only a page that was shown
the turn (its owner's) can name a file; an id alone finds nothing. Each file says whose it
is, so that with sign-in on the route serves a signed-in owner's files to that owner only, and
a conversation's files are listed for its owner (the side panel).

Everything is counted against the owner's byte quota (`smolui.store.quota`); a batch that
does not fit is refused whole, so nothing is half-stored.
"""

from __future__ import annotations

import logging
import mimetypes
import secrets
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Table,
    insert,
    select,
)

from smolui.store.files import ConversationFiles
from smolui.store.quota import OwnerQuota, QuotaExceededError
from smolui.store.schema import Base, Conversation

logger = logging.getLogger(__name__)

NAME_CHARS = 255
# A batch's file names may hold folders ("charts/a.png"); a name is never absolute or "..".
MAX_FILES_PER_TURN = 20
MAX_LISTED = 50  # files a conversation lists at once: the newest

OUTPUT_FILES = Table(
    "output_files",
    Base.metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column(
        "conversation_id",
        String(64),
        ForeignKey("conversations.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("owner", String(128), nullable=False, index=True),
    Column("batch", String(32), nullable=False, index=True),
    Column("key", String(64), nullable=False),
    Column("name", String(NAME_CHARS), nullable=False),
    Column("mime_type", String(128), nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)


@dataclass(frozen=True)
class OutputFile:
    """One stored file of a turn.

    Args:
        id: Its row id (unique in the database).
        batch: The turn's batch id.
        key: The batch's secret, carried by download links.
        name: Its path in the working folder ("report.csv", "charts/a.png").
        mime_type: Its type, guessed from the name.
        size: Bytes.
        owner: Whose conversation it belongs to (the download route serves a signed-in
            owner's files to that owner only).
    """

    id: int
    batch: str
    key: str
    name: str
    mime_type: str
    size: int
    owner: str = ""


@dataclass(frozen=True)
class StoredBatch:
    """A turn's stored files, or why none were stored.

    Args:
        files: The files kept (empty when refused).
        refused: Why the batch was not kept (over the owner's quota), or None.
    """

    files: list[OutputFile]
    refused: str | None = None


class OutputFiles:
    """The output files of every conversation: keep a turn's, find them by batch and key.

    Args:
        engine: The store's migrated engine.
        files: The conversations' folders (where the bytes go).
        quota: The owners' byte quota.
    """

    def __init__(self, engine: Any, files: ConversationFiles, quota: OwnerQuota):
        self.engine, self.files, self.quota = engine, files, quota

    def keep(
        self, conversation_id: str, owner: str, folder: str, found: list[tuple[str, Path]]
    ) -> StoredBatch:
        """Copy a turn's files into the data folder and record them, all or nothing.

        Args:
            conversation_id: The (stored) conversation they belong to.
            owner: Its owner (their quota counts the bytes).
            folder: The conversation's folder name.
            found: `(name, path)` pairs: the name shown (relative to the working folder)
                and where the file is now.
        """
        found = found[:MAX_FILES_PER_TURN]
        if not found:
            return StoredBatch([])
        sizes = [path.stat().st_size for _, path in found]
        try:
            self.quota.check(owner, sum(sizes))
        except QuotaExceededError as error:
            return StoredBatch([], str(error))
        batch, key = secrets.token_hex(16), secrets.token_urlsafe(24)
        target = self.files.outputs_dir(folder, owner) / batch
        try:
            return StoredBatch(
                self._copy_and_record(conversation_id, owner, target, found, batch, key)
            )
        except Exception:
            shutil.rmtree(target, ignore_errors=True)  # nothing half-stored
            raise

    def _copy_and_record(
        self,
        conversation_id: str,
        owner: str,
        target: Path,
        found: list[tuple[str, Path]],
        batch: str,
        key: str,
    ) -> list[OutputFile]:
        target.mkdir(mode=0o700, parents=True, exist_ok=True)
        now = datetime.now(UTC)
        rows = []
        for index, (name, path) in enumerate(found):
            # Copied under its position, never its name: the name came from the code.
            shutil.copyfile(path, target / str(index), follow_symlinks=False)
            mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
            rows.append({
                "conversation_id": conversation_id, "owner": owner, "batch": batch,
                "key": key, "name": name[:NAME_CHARS], "mime_type": mime,
                "size": (target / str(index)).stat().st_size, "created_at": now,
            })  # fmt: skip
        with self.engine.begin() as connection:
            connection.execute(insert(OUTPUT_FILES), rows)
        return self.batch(batch, key)

    def batch(self, batch: str, key: str) -> list[OutputFile]:
        """A batch's files, in the order they were kept; none when the key is wrong.

        Args:
            batch: The batch id from a link.
            key: The key from the same link.
        """
        query = (
            select(OUTPUT_FILES).where(OUTPUT_FILES.c.batch == batch).order_by(OUTPUT_FILES.c.id)
        )
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
        if not rows or not secrets.compare_digest(str(rows[0].key).encode(), str(key).encode()):
            return []
        return [_output_file(row) for row in rows]

    def of_conversation(
        self, conversation_id: str, owner: str, limit: int = MAX_LISTED
    ) -> list[OutputFile]:
        """The newest files the conversation's turns wrote, oldest first (for the side panel).

        Args:
            conversation_id: Which conversation.
            owner: Its owner: another owner's conversation lists nothing.
            limit: Most files listed.
        """
        query = (
            select(OUTPUT_FILES)
            .where(OUTPUT_FILES.c.conversation_id == conversation_id)
            .where(OUTPUT_FILES.c.owner == owner)
            .order_by(OUTPUT_FILES.c.id.desc())
            .limit(limit)
        )
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
        return [_output_file(row) for row in reversed(rows)]

    def path_of(self, batch: str, key: str, file_id: int) -> tuple[OutputFile, Path] | None:
        """One file of a batch and where its bytes are, or None (wrong key, unknown file,
        bytes gone).

        Args:
            batch: The batch id from a link.
            key: The key from the same link.
            file_id: The file's id from the link.
        """
        for file, path in self.paths(batch, key):
            if file.id == file_id:
                return file, path
        return None

    def paths(self, batch: str, key: str) -> list[tuple[OutputFile, Path]]:
        """Every file of a batch with its bytes' path (for the zip); none for a wrong key.

        Args:
            batch: The batch id from a link.
            key: The key from the same link.
        """
        files = self.batch(batch, key)
        place = self._batch_dir(batch) if files else None
        if place is None:
            return []
        pairs = [(file, place / str(position)) for position, file in enumerate(files)]
        return [(file, path) for file, path in pairs if path.is_file()]

    def title_of(self, batch: str) -> str | None:
        """The title of the conversation a batch belongs to (None: no such batch), for the
        zip's name.

        Args:
            batch: The batch id from a link whose key was already checked.
        """
        query = (
            select(Conversation.title)
            .join(OUTPUT_FILES, OUTPUT_FILES.c.conversation_id == Conversation.id)
            .where(OUTPUT_FILES.c.batch == batch)
            .limit(1)
        )
        with self.engine.connect() as connection:
            return connection.execute(query).scalar()

    def _batch_dir(self, batch: str) -> Path | None:
        """Where a batch's bytes are (None: no such batch)."""
        query = (
            select(OUTPUT_FILES.c.owner, Conversation.folder)
            .join(Conversation, OUTPUT_FILES.c.conversation_id == Conversation.id)
            .where(OUTPUT_FILES.c.batch == batch)
            .limit(1)
        )
        with self.engine.connect() as connection:
            row = connection.execute(query).first()
        return None if row is None else self.files.outputs_dir(row.folder, row.owner) / batch


def _output_file(row: Any) -> OutputFile:
    return OutputFile(
        row.id, row.batch, row.key, row.name, row.mime_type, int(row.size), str(row.owner)
    )


__all__ = [
    "MAX_FILES_PER_TURN",
    "MAX_LISTED",
    "OUTPUT_FILES",
    "OutputFile",
    "OutputFiles",
    "StoredBatch",
]
