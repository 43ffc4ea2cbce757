"""Saving a turn writes only the rows that changed, on a SQLite file and a real PostgreSQL."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import event, text

from agents.memory.io import MemoryFormatError, steps_from_data
from smolui.store import database, migrate, open_store


def turn(index: int) -> list[dict]:
    return [
        {"role": "user", "content": f"Question {index}"},
        {"role": "assistant", "content": f"Answer {index}"},
    ]


def steps(count: int) -> dict:
    return {
        "version": 1,
        "steps": [{"type": "TaskStep", "task": f"t{i}", "images": []} for i in range(count)],
    }


class Writes:
    """Counts the rows each statement on the chat and memory tables touches."""

    def __init__(self, engine):
        self.inserted = self.deleted_statements = 0
        event.listen(engine, "before_cursor_execute", self.heard)

    def heard(self, _conn, _cursor, statement, parameters, _context, executemany):
        if "conversation_messages" not in statement and "memory_steps" not in statement:
            return
        if statement.lstrip().upper().startswith("INSERT"):
            self.inserted += len(parameters) if executemany else 1
        elif statement.lstrip().upper().startswith("DELETE"):
            self.deleted_statements += 1


@pytest.fixture
def store(store_url, tmp_path):
    store = open_store(tmp_path / "data", store_url)
    yield store
    store.close()


def save(store, chat, memory, conversation_id="c1") -> None:
    assert store.save("alice", conversation_id, folder="f1", messages=chat, memory=memory)


def test_a_turn_at_the_end_of_a_long_conversation_writes_only_its_own_rows(store):
    chat = []
    for index in range(40):
        chat += turn(index)
        save(store, chat, steps(index + 1))
    writes = Writes(store.engine)
    chat += turn(40)
    save(store, chat, steps(41))
    assert writes.inserted == 3, "two messages and one step, not the whole conversation"
    assert writes.deleted_statements == 0, "appending deletes nothing"
    got = store.get("alice", "c1")
    assert got.messages == chat and got.memory == steps(41)


def test_an_edited_middle_is_rewritten_from_there_and_reads_back_exactly(store):
    chat = turn(0) + turn(1) + turn(2)
    save(store, chat, steps(3))
    edited = turn(0) + [{"role": "user", "content": "Question 1, edited"}]
    save(store, edited, steps(2))
    got = store.get("alice", "c1")
    assert got.messages == edited and got.memory == steps(2)
    save(store, [], None)  # cleared
    got = store.get("alice", "c1")
    assert got.messages == [] and got.memory is None


def test_a_save_by_another_replica_in_between_is_not_overwritten_by_stale_rows(store_url, tmp_path):
    replica_a = open_store(tmp_path / "data", store_url)
    replica_b = open_store(tmp_path / "data", store_url)
    save(replica_a, turn(0), steps(1))
    save(replica_b, turn(0) + turn(1), steps(2))
    save(replica_b, turn(0) + turn(1) + turn(2), steps(3))
    mine = turn(0) + [{"role": "user", "content": "A's own second question"}]
    save(replica_a, mine, steps(2))  # A's memory of what it wrote is out of date
    got = replica_b.get("alice", "c1")
    assert got.messages == mine and got.memory == steps(2)
    replica_a.close()
    replica_b.close()


def test_deleting_a_conversation_deletes_its_rows(store):
    save(store, turn(0), steps(1))
    save(store, turn(1), steps(1), conversation_id="c2")
    assert store.delete("alice", "c1")
    with store.session() as session:
        for table in ("conversation_messages", "memory_steps"):
            ids = session.execute(text(f"SELECT DISTINCT conversation_id FROM {table}")).scalars()
            assert set(ids) == {"c2"}


def test_the_migration_moves_whole_chats_and_memories_into_rows(store_url, tmp_path):
    engine = database.create_engine(database.database_url(tmp_path, store_url))
    migrate.upgrade(engine, "0003")
    chat, memory = turn(0) + turn(1), steps(2)
    insert = text(
        "INSERT INTO conversations (id, owner, title, created_at, updated_at, folder, messages, "
        "memory, turn_state, search_text) VALUES (:i, 'alice', 'Old', CURRENT_TIMESTAMP, "
        "CURRENT_TIMESTAMP, 'f1', :m, :y, 'done', '')"
    )
    with engine.begin() as connection:
        connection.execute(insert, {"i": "c1", "m": json.dumps(chat), "y": json.dumps(memory)})
        connection.execute(insert, {"i": "c2", "m": "[]", "y": json.dumps({"broken": 1})})
    engine.dispose()
    store = open_store(tmp_path, store_url)
    got = store.get("alice", "c1")
    assert got.messages == chat and got.memory == memory
    assert [c.id for c in store.list("alice", "answer")] == ["c1"], "moved messages are indexed"
    assert [c.id for c in store.list("alice", "old")] == ["c1", "c2"] or [
        c.id for c in store.list("alice", "old")
    ] == ["c2", "c1"]
    with pytest.raises(MemoryFormatError):  # damaged before stays damaged, not empty
        steps_from_data(store.get("alice", "c2").memory)
    with store.session() as session:
        left = session.execute(text("SELECT messages, memory FROM conversations WHERE id='c1'"))
        messages, old_memory = left.one()
        assert messages in ("[]", []) and old_memory is None
    store.close()


def test_search_follows_the_rows_each_save_adds_and_removes(store):
    question = {"role": "user", "content": "tomato seedlings"}
    save(store, [question], None)
    save(store, [question, {"role": "assistant", "content": "Water them daily."}], None)
    save(store, turn(7), None, conversation_id="c2")
    assert [c.id for c in store.list("alice", "seedl wat")] == ["c1"], "words of two messages"
    assert store.list("alice", "seedlings question") == []
    save(store, [question], None)  # the answer was undone
    assert store.list("alice", "water") == []
    assert [c.id for c in store.list("alice", "tomato")] == ["c1"]
