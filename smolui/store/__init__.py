"""The conversation store: conversations, agent memory and uploads in a database.

SQLite in the data folder by default (`SMOLUI_DATA_DIR`, default `./data`); PostgreSQL when
`SMOLUI_DATABASE_URL` is set (several replicas share one). `open_store` connects, applies
pending migrations and returns a `ConversationStore`.

May import: agents.memory, smolui.uploads.
"""

from __future__ import annotations

import logging
from pathlib import Path

from smolui.store.conversations import ConversationStore
from smolui.store.database import StoreUnavailableError, safe_url
from smolui.store.records import (
    ConversationSummary,
    CorruptConversationError,
    StoredConversation,
    UploadInfo,
)
from smolui.store.versions import StaleConversationError

__all__ = [
    "ConversationStore",
    "ConversationSummary",
    "CorruptConversationError",
    "StaleConversationError",
    "StoreUnavailableError",
    "StoredConversation",
    "UploadInfo",
    "open_store",
    "safe_url",
]

logger = logging.getLogger(__name__)


def open_store(
    data_dir: str | Path = "data",
    url: str | None = None,
    upload_root: str | Path | None = None,
    media_root: str | Path | None = None,
) -> ConversationStore:
    """Connect to the database, migrate it to the newest schema, and return the store.

    Args:
        data_dir: The data folder (created if missing): the SQLite file and conversations' files.
        url: A SQLAlchemy URL (e.g. `postgresql+psycopg://user:pw@host/db`); None: SQLite.
        upload_root: Parent of the upload folders (default: `data_dir/uploads`).
        media_root: Parent of the folders of images the agent made (default: `data_dir/media`).

    Raises:
        StoreUnavailableError: The database cannot be reached or migrated; the message names
            the URL with its password hidden.
    """
    from sqlalchemy.exc import SQLAlchemyError

    from smolui.store import database, migrate

    folder = Path(data_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreUnavailableError(f"cannot create the data folder {folder}: {error}") from None
    address = database.database_url(folder, url)
    engine = database.create_engine(address)
    database.check_reachable(engine)
    try:
        migrate.upgrade(engine)
    except SQLAlchemyError as error:
        engine.dispose()
        raise StoreUnavailableError(
            f"could not prepare the conversation database at {safe_url(address)}: {error}"
        ) from None
    logger.info("conversation store: %s", safe_url(address))
    return ConversationStore(engine, folder, upload_root, media_root)
