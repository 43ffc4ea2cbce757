"""A conversation read while a turn saves it reads whole: its row and its steps come from one
save, never the row from before and the steps from after (found as "damaged" while a resumed
turn saved under a page's read). A real save commits between the reader's statements, on a
SQLite file and a real PostgreSQL."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import event

from smolui.store import open_store
from smolui.store.records import CorruptConversationError
from tests.smolui.test_store_rows import steps, turn


@pytest.fixture
def store(store_url, tmp_path):
    store = open_store(tmp_path / "data", store_url)
    yield store
    store.close()


def save_between_the_reader_s_statements(store, memory: dict) -> threading.Event:
    """Before the reader's first read of the memory steps, a save on another connection
    commits `memory` (the row the reader already holds is from before it)."""
    reader, done = threading.current_thread(), threading.Event()

    def save() -> None:
        assert store.save("alice", "c1", folder="f1", messages=turn(1) + turn(2), memory=memory)

    def heard(_conn, _cursor, statement, _parameters, _context, _executemany) -> None:
        selects_steps = statement.lstrip().upper().startswith("SELECT") and (
            "memory_steps" in statement.split("FROM", 1)[-1]
        )
        if done.is_set() or threading.current_thread() is not reader or not selects_steps:
            return
        done.set()
        writer = threading.Thread(target=save)
        writer.start()
        writer.join(60)

    event.listen(store.engine, "before_cursor_execute", heard)
    return done


def test_a_read_torn_by_a_save_is_read_again_whole(store):
    assert store.save("alice", "c1", folder="f1", messages=turn(1), memory=None)
    torn = save_between_the_reader_s_statements(store, steps(2))
    record = store.get("alice", "c1")
    assert torn.is_set(), "the save landed between the reader's statements"
    assert record.memory == steps(2)
    assert [m["content"] for m in record.messages][-1] == "Answer 2"


def test_damage_that_stays_is_still_reported(store):
    assert store.save("alice", "c1", folder="f1", messages=turn(1), memory=steps(1))
    with store.engine.begin() as connection:  # steps left without their format: damaged
        connection.exec_driver_sql("UPDATE conversations SET memory_version = NULL")
    with pytest.raises(CorruptConversationError, match="damaged"):
        store.get("alice", "c1")
