"""Bring the database to the newest schema with the migrations shipped in this package.

Alembic is configured in code (no alembic.ini): the app applies pending migrations at start.
Several replicas starting at once on PostgreSQL take turns through an advisory lock.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).parent / "migrations"
_ADVISORY_LOCK = 0x736D6F6C  # "smol": any fixed number the app alone uses


def alembic_config(connection: Any = None) -> Any:
    """An Alembic `Config` for this package's migrations.

    Args:
        connection: The connection `env.py` migrates (required for upgrade/downgrade).
    """
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def upgrade(engine: Any, revision: str = "head") -> None:
    """Apply every migration up to `revision`.

    Args:
        engine: The store's engine.
        revision: Target revision ("head": the newest).
    """
    from alembic import command
    from sqlalchemy import text

    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_LOCK})
        command.upgrade(alembic_config(connection), revision)


def current_revision(engine: Any) -> str | None:
    """The revision the database is at (None: not migrated yet).

    Args:
        engine: The store's engine.
    """
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
