"""Which database, and how to connect: SQLite under the data folder, or PostgreSQL by URL."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from smolui.store import json_codec

logger = logging.getLogger(__name__)

SQLITE_FILE = "smolui.db"
CONNECT_TIMEOUT_S = 10
# JSON columns keep NaN and Infinity in JSON both databases accept (see `json_codec`).
_JSON_CODEC = {"json_serializer": json_codec.dumps, "json_deserializer": json_codec.loads}


class StoreUnavailableError(RuntimeError):
    """The conversation database cannot be reached or prepared; the message names it."""


def database_url(data_dir: str | Path, url: str | None = None) -> str:
    """The database URL: `url` when given, else a SQLite file in `data_dir`.

    Args:
        data_dir: The data folder (created when SQLite is used).
        url: A SQLAlchemy URL such as `postgresql+psycopg://user:pw@host/db`.
    """
    if url:
        return url
    folder = Path(data_dir).resolve()
    return f"sqlite:///{folder / SQLITE_FILE}"


def safe_url(url: str) -> str:
    """The URL with its password hidden, for messages and logs.

    Args:
        url: A SQLAlchemy URL.
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<an unparsable database URL>"


def create_engine(url: str) -> Any:
    """A SQLAlchemy engine; SQLite gets WAL mode, foreign keys and a busy timeout; JSON columns
    on SQLite and PostgreSQL go through `json_codec` (non-finite floats kept).

    Args:
        url: A SQLAlchemy URL.

    Raises:
        StoreUnavailableError: The URL is malformed or its driver is not installed.
    """
    import sqlalchemy
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        parsed = sqlalchemy.engine.make_url(url)
    except ArgumentError as error:
        raise StoreUnavailableError(f"SMOLUI_DATABASE_URL is not a database URL: {error}") from None
    try:
        if parsed.get_backend_name() == "sqlite":
            return _sqlite_engine(parsed)
        postgres = parsed.get_backend_name() == "postgresql"
        connect_args = {"connect_timeout": CONNECT_TIMEOUT_S} if postgres else {}
        codec = _JSON_CODEC if postgres else {}
        return sqlalchemy.create_engine(
            parsed, pool_pre_ping=True, connect_args=connect_args, **codec
        )
    except (NoSuchModuleError, ImportError) as error:
        raise StoreUnavailableError(
            f"no driver for {safe_url(url)}: {error}. For PostgreSQL use a "
            "postgresql+psycopg:// URL (psycopg is in requirements.txt)."
        ) from None


def _sqlite_engine(parsed: Any) -> Any:
    import sqlalchemy

    database = parsed.database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = sqlalchemy.create_engine(parsed, connect_args={"timeout": 30}, **_JSON_CODEC)

    @sqlalchemy.event.listens_for(engine, "connect")
    def _pragmas(connection: Any, _record: Any) -> None:
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")  # readers never wait for the writer
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")  # with WAL: durable at each checkpoint
        cursor.close()

    return engine


def check_reachable(engine: Any) -> None:
    """Open one connection, or say clearly which database could not be reached.

    Args:
        engine: The engine to try.

    Raises:
        StoreUnavailableError: Naming the URL (password hidden) and the driver's reason.
    """
    from sqlalchemy import text
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except (SQLAlchemyError, OSError) as error:
        cause = getattr(error, "orig", None)  # SQLAlchemy: the driver's error, on a DBAPIError only
        reason = str(cause or error).strip().splitlines()[0]
        raise StoreUnavailableError(
            f"cannot reach the conversation database at {safe_url(str(engine.url))}: {reason}"
        ) from None
