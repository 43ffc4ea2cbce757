"""Conversations evicted before their first turn: remembered with per-owner caps first, in
memory and in the conversation store, so a restart still brings them back as themselves.

Real parts: a real store (SQLite, or PostgreSQL when configured), its migrations, and one app
process (registry, keeper, handlers) over it, then a second process over the same data.
"""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect

from smolui.handlers.chat import RELEASED_NOTICE
from smolui.sessions.released import Released, ReleasedList
from smolui.store import open_store
from smolui.store.migrate import alembic_config
from smolui.store.released import StoreReleased
from tests.smolui.test_eviction_keeps_data import App, others_open, stored_texts, texts


def with_released_store(app: App) -> App:
    """Wire the store's released list as `attach_store` does for the app."""
    app.registry.released_store = StoreReleased(lambda: app.keeper.store.engine)
    return app


def test_a_page_evicted_before_its_first_message_comes_back_after_a_restart(store_url, tmp_path):
    data = tmp_path / "data"
    first = with_released_store(App(store_url, data, cap=1))
    try:
        conversation_id, chat, state, _ = first.pages.load(None, page="p1")
        others_open(first, 2)
        assert first.registry.get(conversation_id) is None, "the cap evicted it"
    finally:
        first.close()

    second = with_released_store(App(store_url, data, cap=1))  # the app restarted
    try:
        chat = second.send("My favourite colour is teal.", conversation_id, chat)
        assert "Noted teal." in texts(chat) and RELEASED_NOTICE not in texts(chat)
        session = second.registry.get(conversation_id)
        assert session is not None and session.owner == state["owner"], "same id, same owner"
        assert "Noted teal." in stored_texts(second, state["owner"], conversation_id)
        assert StoreReleased(lambda: second.keeper.store.engine).count() <= 2, "it was dropped"
    finally:
        second.close()


def test_the_store_caps_an_owner_first_then_everyone(store_url, tmp_path):
    store = open_store(tmp_path / "data", store_url)
    try:
        kept = StoreReleased(lambda: store.engine, per_owner=3, total=5)
        kept.keep("visitor-1", "visitor", "f0", None)
        for n in range(10):
            kept.keep(f"flood-{n}", "flooder", f"f{n}", "m")
        assert kept.find("visitor-1") == ("visitor", "f0", None), "a flood keeps others'"
        assert kept.count("flooder") == 3 and kept.find("flood-6") is None
        assert kept.find("flood-9") == ("flooder", "f9", "m")
        for n in range(3):
            kept.keep(f"other-{n}", f"owner-{n}", "f", None)
        assert kept.count() == 5 and kept.find("visitor-1") is None, "the oldest of all went"
        kept.forget("flood-9")
        assert kept.find("flood-9") is None
    finally:
        store.close()


def test_the_memory_list_caps_an_owner_first_then_everyone():
    released = ReleasedList(per_owner=3, total=5)
    released.keep("visitor-1", Released("visitor", "f0", None))
    for n in range(10):
        released.keep(f"flood-{n}", Released("flooder", f"f{n}", None))
    assert "visitor-1" in released and len(released) == 4
    for n in range(3):
        released.keep(f"other-{n}", Released(f"owner-{n}", "f", None))
    assert len(released) == 5 and "visitor-1" not in released
    assert released.take("other-2") == Released("owner-2", "f", None)
    assert released.owners() == 3, "an owner with no entry left is not kept"


def test_the_migration_downgrades_and_upgrades_again(store_url, tmp_path):
    store = open_store(tmp_path / "data", store_url)

    def migrate(step, revision: str) -> None:
        with store.engine.begin() as connection:
            step(alembic_config(connection), revision)

    def tables() -> set[str]:
        return set(inspect(store.engine).get_table_names())

    try:
        assert "released_conversations" in tables()
        migrate(command.downgrade, "0010")
        assert "released_conversations" not in tables()
        migrate(command.upgrade, "head")
        kept = StoreReleased(lambda: store.engine)
        kept.keep("c1", "alice", "f", None)
        assert kept.find("c1") == ("alice", "f", None)
    finally:
        store.close()
