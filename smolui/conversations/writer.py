"""Writing one live conversation into the conversation store: its chat, memory and new uploads.

Saves of one conversation run one at a time: each save deletes the memory images its memory
no longer names (`ConversationFiles.remove_unused_images`), so an overlapping save could
delete an image the other one just wrote. The memory is turned into data through a
`MemorySnapshot` per conversation, so a save costs what the turn added.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.memory.io import FolderImageStore
from smolui.conversations import transcripts
from smolui.conversations.memory_snapshot import MemorySnapshot
from smolui.sessions import Session

if TYPE_CHECKING:  # the store (SQLAlchemy) is imported when it opens, after the page serves
    from smolui.store import ConversationStore, UploadInfo
    from smolui.store.versions import CheckedSaves

logger = logging.getLogger(__name__)


class ConversationWriter:
    """Writes live conversations into the store, one save at a time per conversation.

    Args:
        store: Returns the conversation store (opening it on first use).
        roots: Returns the folders whose files a saved chat may show, resolved.
    """

    def __init__(
        self, store: Callable[[], ConversationStore], roots: Callable[[], list[str]]
    ) -> None:
        self._store = store
        self._roots = roots
        self._lock = threading.Lock()
        # Per live conversation: its memory as data, remade only for the steps that changed.
        self._snapshots: weakref.WeakKeyDictionary[Session, MemorySnapshot] = (
            weakref.WeakKeyDictionary()
        )
        # Per live conversation: one save at a time (each deletes the images it does not name).
        self._write_locks: weakref.WeakKeyDictionary[Session, threading.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self._checked: CheckedSaves | None = None  # made with the store: the versions saved

    def write(self, session: Session, chat: list[dict[str, Any]], state: str) -> str:
        """Write one conversation: "saved", "refused" (no owner, someone else's) or "failed"
        (the database or the disk refused; the caller may try again).

        Args:
            session: The live conversation.
            chat: The chat as the page shows it.
            state: Its turn state ("running", "done", "stopped", "failed", "idle").
        """
        if session.owner is None:
            return "refused"
        from sqlalchemy.exc import SQLAlchemyError

        from smolui.store.versions import CheckedSaves, StaleConversationError

        with self._lock:
            write_lock = self._write_locks.setdefault(session, threading.Lock())
            self._checked = self._checked or CheckedSaves()
        with write_lock:
            count = len(session.files)
            new_files = session.files[session.saved_files : count]
            try:
                store = self._store()
                memory = self._memory(session, store)
                # Version-checked (issue 32): merged with what another replica saved meanwhile.
                revision, memory = self._checked.save(
                    store,
                    session,
                    session.owner,
                    session.id,
                    folder=session.folder,
                    messages=transcripts.sanitize_messages(chat, self._roots()),
                    memory=memory,
                    turn_state=state,
                    uploads=[_upload_info(f, session.upload_dir) for f in new_files],
                    forget_uploads=session.saved_files == 0,
                    model=session.model,
                )
            except (SQLAlchemyError, OSError, StaleConversationError):
                logger.warning("could not save a conversation", exc_info=True)
                return "failed"
            if revision is None:
                return "refused"
            if memory is not None:  # e.g. full-size files of images the agent since reduced
                store.files.remove_unused_images(session.folder, memory)
            session.saved_files = count
        return "saved"

    def based_on(
        self, session: Session, revision: int, messages: list[Any], steps: list[Any]
    ) -> None:
        """The live conversation was opened from this stored version: its saves are based on
        it (`smolui.store.versions.CheckedSaves.based_on`).

        Args:
            session: The live conversation.
            revision: The stored version.
            messages: That version's chat.
            steps: That version's memory steps (as data).
        """
        from smolui.store.versions import CheckedSaves

        with self._lock:
            self._checked = self._checked or CheckedSaves()
            checked = self._checked
        checked.based_on(session, revision, messages, steps)

    def _memory(self, session: Session, store: ConversationStore) -> dict[str, Any] | None:
        if not session.has_agent:
            return None
        images = FolderImageStore(store.image_dir(session.folder))
        with self._lock:
            snapshot = self._snapshots.setdefault(session, MemorySnapshot())
        return snapshot.data(list(session.agent.memory.steps), images)


def _upload_info(item: Any, upload_dir: Path) -> UploadInfo:
    from smolui.store import UploadInfo

    path = Path(item.stored_path)
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        relative = str(path.resolve().relative_to(upload_dir.resolve()))
    except (OSError, ValueError):
        digest, relative = "", path.name
    return UploadInfo(
        name=item.display_name,
        kind=item.kind,
        size=item.size,
        sha256=digest,
        path=relative,
        pages=item.pages,
        rows=item.table.rows if item.table is not None else None,
        text=item.text,
    )
