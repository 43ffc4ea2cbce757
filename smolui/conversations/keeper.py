"""Between live conversations and the conversation store: save after turns, resume anywhere.

The store is the source of truth; a live agent is a cache. A conversation whose agent is not
in memory (evicted, server restarted, another replica) is rebuilt from its stored memory; only
the code's variables cannot come back, and the model is told so in one line.
"""

from __future__ import annotations

import functools
import logging
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.loop.agent import MultiStepAgent
from agents.memory.io import FolderImageStore, MemoryFormatError, steps_from_data
from agents.memory.steps import ActionStep
from smolui.conversations import transcripts
from smolui.conversations.followed import FollowedBranches
from smolui.conversations.writer import ConversationWriter
from smolui.sessions import ConversationUnavailableError, Resumed, Session
from smolui.sessions.released import DeferredReleasedStore

if TYPE_CHECKING:  # the store (SQLAlchemy) is imported when it opens, after the page serves
    from smolui.store import (
        ConversationStore,
        ConversationSummary,
        StoredConversation,
        UploadInfo,
    )

logger = logging.getLogger(__name__)

RESUME_NOTE_FOR_MODEL = (
    "(Note: the Python session was restarted since the last message, so variables defined "
    "earlier are gone; define again what you need.)"
)
RETRY_S = 10.0  # seconds between attempts to save what the database refused
_LABELS = {"pdf": "PDF", "docx": "Word document", "text": "text file", "image": "image"}


class ConversationKeeper:
    """Saves live conversations into the store and brings stored ones back.

    Args:
        store: The conversation store (None: `opener` opens it on first use).
        allowed_roots: Folders whose files a stored chat may show (gradio's cache, media).
        retry_s: Seconds between attempts to save a conversation the database refused.
        opener: Opens the store, when `store` is None.
    """

    def __init__(
        self,
        store: ConversationStore | None,
        allowed_roots: Callable[[], list[str]],
        retry_s: float = RETRY_S,
        opener: Callable[[], ConversationStore] | None = None,
    ):
        if store is None and opener is None:
            raise ValueError("a ConversationKeeper needs a store or a way to open one")
        self._store = store
        self._opener = opener
        self._open_lock = threading.Lock()
        self.allowed_roots = allowed_roots
        self.retry_s = retry_s
        self._unsaved: dict[str, tuple[Session, list[dict[str, Any]], str]] = {}
        self._retry_lock = threading.Lock()
        self._retrying = False
        self._writer = ConversationWriter(self.open, self._roots)
        # Agents let go because another branch is shown (`smolui.conversations.branches`).
        self.followed = FollowedBranches()

    @property
    def store(self) -> ConversationStore:
        """The conversation store (opened now if it was not yet, see `open`)."""
        return self._store if self._store is not None else self.open()

    def open(self) -> ConversationStore:
        """Open the store if it is not open yet, and return it.

        Raises:
            StoreUnavailableError: It cannot be opened (the next use tries again).
        """
        with self._open_lock:
            if self._store is None:
                self._store = self._opener()
            return self._store

    def close(self) -> None:
        """Release the store's connections (a store never opened has none)."""
        if self._store is not None:
            self._store.close()

    def _roots(self) -> list[str]:
        return [str(Path(root).resolve()) for root in self.allowed_roots()]

    # -- reading ----------------------------------------------------------------------------

    def find(self, owner: str, conversation_id: str) -> StoredConversation | None:
        """The owner's stored conversation, or None (unknown, or someone else's).

        Args:
            owner: Who asks.
            conversation_id: Which conversation.

        Raises:
            ConversationUnavailableError: It is stored but damaged.
        """
        from smolui.store import CorruptConversationError

        try:
            return self.store.get(owner, conversation_id)
        except CorruptConversationError as error:
            raise ConversationUnavailableError(str(error)) from None

    def chat(self, record: StoredConversation) -> list[dict[str, Any]]:
        """The stored chat, safe to show (files that are gone become a short note).

        Args:
            record: A stored conversation.
        """
        return transcripts.sanitize_messages(record.messages, self._roots())

    def list(self, owner: str, query: str = "") -> list[ConversationSummary]:
        """The owner's conversations, newest first (filtered by `query`).

        Args:
            owner: Whose.
            query: Search words.
        """
        return self.store.list(owner, query)

    def resume(self, conversation_id: str, owner: str | None = None) -> Resumed | None:
        """How to bring back a stored conversation (for `SessionRegistry(resume=...)`).

        Args:
            conversation_id: Which conversation (from the page's server-side state, or
                already checked against its owner).
            owner: When given, only this owner's conversation is found.

        Raises:
            ConversationUnavailableError: It is stored but its data is damaged.
        """
        record = self._by_id(conversation_id, owner)
        if record is None:
            return None
        images = FolderImageStore(self.store.image_dir(record.folder))
        try:
            steps = steps_from_data(record.memory, images) if record.memory else []
        except MemoryFormatError as error:
            raise ConversationUnavailableError(
                f"This conversation's stored memory is damaged and cannot be opened ({error})."
            ) from None
        uses_code = any(isinstance(s, ActionStep) and s.code_action for s in steps)

        def restore(agent: MultiStepAgent) -> None:
            agent.restore_memory(steps)

        def based_on(session: Session) -> None:  # its saves merge against this version
            stored_steps = (record.memory or {}).get("steps", [])
            self._writer.based_on(session, record.revision, record.messages, stored_steps)

        self.store.files.adopt_unscoped(record.folder, record.owner)  # saved before owners
        return Resumed(
            owner=record.owner,
            folder=record.folder,
            restore=restore,
            files=self.uploads(record),
            note=RESUME_NOTE_FOR_MODEL if uses_code else None,
            model=record.model,
            based_on=based_on,
        )

    def uploads(self, record: StoredConversation) -> list[Any]:
        """The stored conversation's uploaded files as a live one holds them (`AcceptedFile`s:
        the agent reads them, the side panel lists them).

        Args:
            record: A stored conversation.
        """
        upload_dir = self.store.upload_dir(record.folder, record.owner)
        return [_accepted(u, upload_dir) for u in record.uploads]

    def _by_id(self, conversation_id: str, owner: str | None) -> StoredConversation | None:
        owner = owner if owner is not None else self.store.owner_of(conversation_id)
        return self.find(owner, conversation_id) if owner else None

    # -- writing ----------------------------------------------------------------------------

    def save(self, session: Session, chat: list[dict[str, Any]], state: str = "done") -> bool:
        """Save a live conversation: its chat, its agent's memory and new uploads.

        Returns False when it could not be saved: no owner yet, someone else's id, or the
        database is unreachable (then the save is retried every `retry_s` seconds until it
        succeeds or a newer save replaces it).

        Args:
            session: The live conversation.
            chat: The chat as the page shows it.
            state: Its turn state ("running", "done", "stopped", "failed", "idle").
        """
        outcome = self._writer.write(session, chat, state)
        with self._retry_lock:
            if outcome == "failed":
                self._unsaved[session.id] = (session, chat, state)
                if not self._retrying:
                    self._retrying = True
                    threading.Thread(
                        target=self._retry, name="smolui-save-retry", daemon=True
                    ).start()
            else:
                self._unsaved.pop(session.id, None)
        return outcome == "saved"

    def _retry(self) -> None:
        """Save the conversations a failed save left behind, until every one is saved."""
        while True:
            time.sleep(self.retry_s)
            with self._retry_lock:
                pending = list(self._unsaved.values())
            for session, chat, state in pending:
                if self._writer.write(session, chat, state) != "failed":
                    logger.info("saved a conversation after the database came back")
                    with self._retry_lock:
                        if self._unsaved.get(session.id, (None,))[0] is session:
                            del self._unsaved[session.id]
            with self._retry_lock:
                if not self._unsaved:
                    self._retrying = False
                    return

    def clean(self, messages: Any) -> list[dict[str, Any]]:
        """Chat messages from elsewhere (an older browser state), safe to store and show.

        Args:
            messages: Messages as the page rendered them.
        """
        return transcripts.sanitize_messages(messages, self._roots())

    def store_chat(
        self, owner: str, conversation_id: str, chat: list[dict[str, Any]], title: str = ""
    ) -> bool:
        """Store a chat no agent remembers (imported) as a new conversation of `owner`.

        Args:
            owner: Whose conversation it becomes.
            conversation_id: A new conversation id.
            chat: Its messages, cleaned (`clean`).
            title: Its title ("" : from the first message).
        """
        folder = secrets.token_hex(8)
        saved = self.store.save(
            owner, conversation_id, folder=folder, messages=chat, memory=None, turn_state="idle"
        )
        if saved and title.strip():
            self.store.rename(owner, conversation_id, title)
        return saved

    def rename(self, owner: str, conversation_id: str, title: str) -> bool:
        """Rename the owner's conversation.

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
            title: The new title.
        """
        return self.store.rename(owner, conversation_id, title)

    def delete(self, owner: str, conversation_id: str) -> bool:
        """Delete the owner's conversation, its memory and files.

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
        """
        return self.store.delete(owner, conversation_id)

    def files_of(self, owner: str, conversation_id: str) -> list[Path]:
        """The files the owner's stored conversation shows or keeps: those its chat names
        (uploads as sent), its media and upload folders' files. Empty when it is not theirs.

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
        """
        from smolui.render.media import files_under

        try:
            record = self.find(owner, conversation_id)
        except ConversationUnavailableError:
            return []
        if record is None:
            return []
        files = self.store.files
        folders = (
            files.media_dir(record.folder, record.owner),
            files.upload_dir(record.folder, record.owner),
        )
        named = [Path(path) for path in _named_paths(record.messages)]
        return named + [path for folder in folders for path in files_under(folder)]

    def delete_all(self, owner: str) -> int:
        """Delete every conversation of the owner.

        Args:
            owner: Whose.
        """
        return self.store.delete_all(owner)


def _named_paths(value: Any) -> list[str]:
    """Every file path a stored chat names (`{"path": ...}` at any depth)."""
    if isinstance(value, dict):
        found = [value["path"]] if isinstance(value.get("path"), str) else []
        return found + [path for item in value.values() for path in _named_paths(item)]
    if isinstance(value, list | tuple):
        return [path for item in value for path in _named_paths(item)]
    return []


def _accepted(info: UploadInfo, upload_dir: Path) -> Any:
    from smolui.uploads.ingest import AcceptedFile

    return AcceptedFile(
        display_name=info.name,
        stored_path=upload_dir / info.path,
        kind=info.kind,
        label=_LABELS.get(info.kind, info.kind),
        size=info.size,
        pages=info.pages,
    )


def attach_store(
    registry: Any, settings: Any, allowed_roots: Callable[[], list[str]], store: Any = None
) -> ConversationKeeper:
    """Let `registry` keep its conversations in the store for these settings and resume
    from it; the store opens on first use (`keeper.store`: app.py opens it once the page
    serves, so the browser loads the page meanwhile).

    Eviction then keeps files (the store deletes them with the conversation), stored
    conversations come back under their own id, and old ones are purged when
    `settings.retention_days` is set. With the default upload folder, stored conversations'
    folders an older version left in `./uploads` are moved into the data folder as it opens.

    Args:
        registry: The app's `SessionRegistry`.
        settings: The app's `Settings` (data_dir, database_url, retention_days).
        allowed_roots: Folders whose files a stored chat may show.
        store: A ready `ConversationStore` instead of opening one from the settings.
    """
    from smolui.conversations.retention import start_retention

    opener = None
    if store is None:
        opener = functools.partial(_open_for, registry, settings)
    else:
        if registry.media_root is not None and registry.media_root != store.files.media_root:
            store.files.extra_roots.append(registry.media_root)
        if settings.retention_days:
            start_retention(store, settings.retention_days)
    keeper = ConversationKeeper(store, allowed_roots, opener=opener)
    registry.resume = keeper.resume
    registry.released_store = DeferredReleasedStore(functools.partial(_released_rows, keeper))
    registry.keep_files = True
    return keeper


def _released_rows(keeper: ConversationKeeper) -> Any:
    """The store's list of conversations evicted before their first turn (issue 33)."""
    from smolui.store.released import StoreReleased

    return StoreReleased(lambda: keeper.store.engine)


def _open_for(registry: Any, settings: Any) -> ConversationStore:
    """Open the store for these settings, bring an older version's upload folders into it
    (default upload folder only) and start the retention purge.

    Raises:
        StoreUnavailableError: The database cannot be reached or migrated.
    """
    from smolui.conversations.retention import start_retention
    from smolui.store import open_store
    from smolui.store.old_uploads import move_old_uploads

    roots = (registry.upload_root, registry.media_root)
    store = open_store(settings.data_dir, settings.database_url, *roots)
    if not settings.upload_folder:
        move_old_uploads(store)
    if settings.retention_days:
        start_retention(store, settings.retention_days)
    return store
