"""Bring the database to the newest schema with the migrations shipped in this package.

Alembic is configured in code (no alembic.ini): the app applies pending migrations at start.
Several replicas starting at once on PostgreSQL take turns through an advisory lock.

A database already at the newest revision (every start but the first) is recognised without
Alembic: its `alembic_version` row is read with SQLAlchemy and compared with the head read
from the migration files themselves (`head_revision`), so the start skips importing Alembic
and loading its scripts (about 0.1 CPU seconds). Anything unusual goes to Alembic.
"""

from __future__ import annotations

import ast
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
    """Apply every migration up to `revision` (nothing to do, and Alembic not even imported,
    when the database is at the head already).

    Args:
        engine: The store's engine.
        revision: Target revision ("head": the newest).
    """
    if revision == "head" and is_at_head(engine):
        return
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


def head_revision() -> str | None:
    """The newest revision of the migrations shipped here, read from the `revision` and
    `down_revision` assignments of their files (Alembic is not imported).

    Returns:
        The one revision no other revises; None when the files do not show exactly one
        (several heads, or a file these plain assignments do not describe): Alembic decides.
    """
    revisions: set[str] = set()
    revised: set[str] = set()
    for path in sorted((MIGRATIONS / "versions").glob("*.py")):
        if path.name == "__init__.py":
            continue
        values = _module_constants(path, ("revision", "down_revision", "depends_on"))
        revision, down = values.get("revision"), values.get("down_revision")
        if not isinstance(revision, str) or values.get("depends_on") is not None:
            return None
        revisions.add(revision)
        if isinstance(down, str):
            revised.add(down)
        elif isinstance(down, tuple | list):
            revised.update(str(name) for name in down)
        elif down is not None:
            return None
    heads = revisions - revised
    return heads.pop() if len(heads) == 1 else None


def is_at_head(engine: Any) -> bool:
    """True when the database's recorded revision is `head_revision()` (False when it has
    none yet, or it cannot be read: then the migrations run).

    Args:
        engine: The store's engine.
    """
    from sqlalchemy import text
    from sqlalchemy.exc import SQLAlchemyError

    head = head_revision()
    if head is None:
        return False
    try:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    except SQLAlchemyError:  # no such table: a new database
        return False
    return [row[0] for row in rows] == [head]


def _module_constants(path: Path, names: tuple[str, ...]) -> dict[str, Any]:
    """The literal values assigned at the top level of a Python file to `names`."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id in names:
            try:
                found[target.id] = ast.literal_eval(value)
            except (ValueError, TypeError):
                found[target.id] = value  # not a literal: callers treat it as unknown
    return found
