"""A database already at the newest schema is recognised without Alembic; any other goes to it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smolui.store import database, migrate, open_store

ROOT = Path(__file__).resolve().parents[2]


def alembic_heads(folder: Path) -> list[str]:
    from alembic.script import ScriptDirectory

    return list(ScriptDirectory(str(folder)).get_heads())


def test_the_head_read_from_the_files_is_alembic_s_head():
    assert [migrate.head_revision()] == alembic_heads(migrate.MIGRATIONS)


def test_reopening_a_migrated_database_does_not_import_alembic(store_url, tmp_path):
    open_store(tmp_path / "data", store_url).close()  # the first start migrates
    probe = (
        "import sys; from smolui.store import open_store; "
        f"open_store({str(tmp_path / 'data')!r}, {store_url!r}).close(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=True)  # fmt: skip
    assert done.stdout.strip() == "[]"


def test_a_database_behind_the_head_is_migrated(store_url, tmp_path):
    engine = database.create_engine(store_url)
    migrate.upgrade(engine, "0003")
    assert not migrate.is_at_head(engine)
    migrate.upgrade(engine)
    assert migrate.is_at_head(engine)
    assert migrate.current_revision(engine) == migrate.head_revision()
    engine.dispose()


def test_a_new_database_is_not_at_the_head(tmp_path):
    engine = database.create_engine(f"sqlite:///{tmp_path / 'new.db'}")
    assert not migrate.is_at_head(engine)
    engine.dispose()


def copy_of_migrations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "migrations"
    shutil.copytree(migrate.MIGRATIONS, folder)
    monkeypatch.setattr(migrate, "MIGRATIONS", folder)
    return folder


def add_migration(folder: Path, name: str, header: str) -> None:
    body = "def upgrade() -> None:\n    pass\n\n\ndef downgrade() -> None:\n    pass\n"
    (folder / "versions" / name).write_text(f'"""A test migration."""\n\n{header}\n\n\n{body}')


def test_a_new_migration_file_moves_the_head_and_the_database_is_migrated_to_it(
    tmp_path, monkeypatch
):
    engine = database.create_engine(f"sqlite:///{tmp_path / 'store.db'}")
    migrate.upgrade(engine)
    folder = copy_of_migrations(tmp_path, monkeypatch)
    shipped = migrate.head_revision()
    header = f'revision: str = "9001"\ndown_revision: str | None = "{shipped}"\ndepends_on = None'
    add_migration(folder, "9001_more.py", header)
    assert migrate.head_revision() == "9001" and alembic_heads(folder) == ["9001"]
    assert not migrate.is_at_head(engine)  # the shipped files decide, not a number kept by hand
    migrate.upgrade(engine)
    assert migrate.current_revision(engine) == "9001" and migrate.is_at_head(engine)
    engine.dispose()


def test_two_heads_or_unplain_files_leave_the_decision_to_alembic(tmp_path, monkeypatch):
    shipped = migrate.head_revision()
    folder = copy_of_migrations(tmp_path, monkeypatch)
    add_migration(folder, "9001_side.py", f'revision = "9001a"\ndown_revision = "{shipped}"')
    add_migration(folder, "9001_other.py", f'revision = "9001b"\ndown_revision = "{shipped}"')
    assert migrate.head_revision() is None
    (folder / "versions" / "9001_other.py").unlink()
    assert migrate.head_revision() == "9001a"
    add_migration(folder, "9002.py", 'revision = "9002"\ndown_revision = "9001a"\n'
                  'depends_on = "0002"')  # fmt: skip
    assert migrate.head_revision() is None
