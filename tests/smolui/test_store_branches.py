"""Conversations as trees in the store, on real databases (SQLite file, real PostgreSQL)."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import text

from smolui.store import open_store
from smolui.store.migrate import alembic_config
from smolui.store.tree import ConversationTree, Versions


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def agent(text: str) -> dict:
    return {"role": "assistant", "content": text}


def task(text: str) -> dict:
    return {"type": "TaskStep", "task": text, "images": []}


TWO_TURNS = [user("plant tomatoes?"), agent("yes, in May"), user("and basil?"), agent("June")]
TWO_TASKS = {"version": 1, "steps": [task("plant tomatoes?"), task("and basil?")]}


@pytest.fixture
def store(store_url, tmp_path):
    store = open_store(tmp_path / "data", store_url)
    yield store
    store.close()


def save(store, chat, memory=TWO_TASKS, owner="alice", conversation_id="c1") -> None:
    assert store.save(owner, conversation_id, folder="f1", messages=chat, memory=memory)


def test_editing_the_first_message_starts_a_branch_and_keeps_the_old_one(store):
    tree = ConversationTree(store)
    save(store, TWO_TURNS)
    assert tree.versions("alice", "c1") == []
    assert tree.fork("alice", "c1", 0, TWO_TURNS[:0]) == 1
    # The new branch starts empty: no message and no memory of the old turns.
    assert (
        store.get("alice", "c1").messages == [] and store.get("alice", "c1").memory["steps"] == []
    )
    edited = [user("plant peppers?"), agent("in April")]
    save(store, edited, {"version": 1, "steps": [task("plant peppers?")]})
    assert store.get("alice", "c1").messages == edited
    assert tree.versions("alice", "c1") == [Versions(0, 2, 2)]
    assert tree.switch("alice", "c1", 0, -1)
    back = store.get("alice", "c1")
    assert back.messages == TWO_TURNS and back.memory == TWO_TASKS  # the branch's own memory
    assert tree.versions("alice", "c1") == [Versions(0, 1, 2)]
    assert not tree.switch("alice", "c1", 0, -1)  # no version before the first
    assert tree.switch("alice", "c1", 0, 1)
    assert store.get("alice", "c1").messages == edited


def test_a_second_answer_is_a_version_of_the_answer_and_memory_is_cut_at_its_turn(store):
    tree = ConversationTree(store)
    save(store, TWO_TURNS)
    assert tree.fork("alice", "c1", 3, TWO_TURNS[:3]) == 1
    stored = store.get("alice", "c1")
    assert stored.messages == TWO_TURNS[:3]
    assert stored.memory["steps"] == [task("plant tomatoes?")]  # the retried turn is gone
    save(store, TWO_TURNS[:3] + [agent("July")])
    assert tree.versions("alice", "c1") == [Versions(3, 2, 2)]
    assert tree.active_path("alice", "c1")[-1] == agent("July")
    # A third version of the same answer, made from the second.
    assert tree.fork("alice", "c1", 3, TWO_TURNS[:3]) == 2
    save(store, TWO_TURNS[:3] + [agent("August")])
    assert tree.versions("alice", "c1") == [Versions(3, 3, 3)]
    assert tree.switch("alice", "c1", 3, -1) and tree.switch("alice", "c1", 3, -1)
    assert tree.active_path("alice", "c1") == TWO_TURNS


def test_switching_back_to_a_version_shows_its_branch_seen_last(store):
    tree = ConversationTree(store)
    save(store, TWO_TURNS)
    tree.fork("alice", "c1", 3, TWO_TURNS[:3])  # branch 1: another answer to "and basil?"
    save(store, TWO_TURNS[:3] + [agent("July")])
    tree.fork("alice", "c1", 0, [])  # branch 2: the first message edited
    save(store, [user("plant peppers?")])
    assert tree.versions("alice", "c1") == [Versions(0, 2, 2)]
    assert tree.switch("alice", "c1", 0, -1)
    assert tree.active_path("alice", "c1")[-1] == agent("July")  # seen last, not branch 0
    assert tree.versions("alice", "c1") == [Versions(0, 1, 2), Versions(3, 2, 2)]


def test_only_the_owner_forks_switches_or_reads_a_branch(store):
    tree = ConversationTree(store)
    save(store, TWO_TURNS)
    assert tree.fork("mallory", "c1", 0, []) is None
    tree.fork("alice", "c1", 0, [])
    assert not tree.switch("mallory", "c1", 0, -1)
    assert tree.versions("mallory", "c1") == [] and tree.active_path("mallory", "c1") == []
    assert not tree.show_match("mallory", "c1", "tomatoes")
    assert tree.active_branch("alice", "c1") == 1


def test_search_finds_every_branch_and_a_hit_opens_on_its_branch(store):
    tree = ConversationTree(store)
    save(store, TWO_TURNS)
    tree.fork("alice", "c1", 0, [])
    save(store, [user("plant peppers?"), agent("in April")])
    assert [c.id for c in store.list("alice", "basil")] == ["c1"]  # on the hidden branch
    assert tree.show_match("alice", "c1", "basil")
    assert store.get("alice", "c1").messages == TWO_TURNS
    assert not tree.show_match("alice", "c1", "tomatoes")  # the branch shown holds it


def test_deleting_a_conversation_deletes_its_branches(store):
    tree = ConversationTree(store)
    save(store, TWO_TURNS)
    tree.fork("alice", "c1", 0, [])
    assert store.delete("alice", "c1")
    with store.session() as session:
        for table in ("conversation_branches", "conversation_messages", "memory_steps"):
            assert session.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 0


def test_a_linear_conversation_becomes_one_branch_and_the_downgrade_keeps_the_branch_shown(
    store_url, tmp_path
):
    store = open_store(tmp_path / "data", store_url)

    def migrate(step, revision: str) -> None:
        with store.engine.begin() as connection:
            step(alembic_config(connection), revision)

    try:
        migrate(command.downgrade, "0007")
        with store.engine.begin() as connection:  # a chat saved before trees existed
            connection.execute(text(
                "INSERT INTO conversations (id, owner, title, created_at, updated_at, folder, "
                "messages, turn_state, search_text, revision, memory_version) VALUES ('old', "
                "'alice', 'Tomatoes', '2026-01-01', '2026-01-01', 'f', '[]', 'done', '', 1, 1)"
            ))  # fmt: skip
            for position, message in enumerate(
                [
                    '{"role": "user", "content": "tomatoes?"}',
                    '{"role": "assistant", "content": "May"}',
                ]
            ):
                connection.execute(text(
                    "INSERT INTO conversation_messages (conversation_id, position, data) "
                    "VALUES ('old', :p, :d)"), {"p": position, "d": message})  # fmt: skip
        migrate(command.upgrade, "0008")
        tree = ConversationTree(store)
        assert tree.active_branch("alice", "old") == 0
        assert [m["content"] for m in store.get("alice", "old").messages] == ["tomatoes?", "May"]
        assert [c.id for c in store.list("alice", "tomatoes")] == ["old"]
        tree.fork("alice", "old", 0, [])
        save(store, [user("peppers?")], owner="alice", conversation_id="old")
        migrate(command.downgrade, "0007")  # back: the branch shown stays, alone
        with store.engine.connect() as connection:
            rows = connection.execute(text("SELECT data FROM conversation_messages")).all()
        assert len(rows) == 1 and "peppers" in str(rows[0][0])
        migrate(command.upgrade, "head")
        assert [c.id for c in store.list("alice", "peppers")] == ["old"]
        assert store.list("alice", "May") == []
    finally:
        store.close()


def test_a_branch_counts_its_own_messages(store):
    from smolui.store.branches import message_count

    save(store, TWO_TURNS)
    ConversationTree(store).fork("alice", "c1", 3, TWO_TURNS[:3])
    with store.session() as session:
        # Counted in the database (the page asks after every turn): the first branch keeps
        # its four messages, the one forked at the last answer holds the three before it.
        assert message_count(session, "c1", 0) == 4
        assert message_count(session, "c1", 1) == 3
        assert message_count(session, "c1", 7) == 0
