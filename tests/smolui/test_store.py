"""The conversation store on real databases (a SQLite file, a real PostgreSQL server)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from smolui.store import (
    CorruptConversationError,
    StoreUnavailableError,
    UploadInfo,
    open_store,
    safe_url,
)
from smolui.store.migrate import current_revision, head_revision

CHAT = [{"role": "user", "content": "How much did the greenhouse harvest?"},
        {"role": "assistant", "content": "Bay three harvested 412 kilograms."}]  # fmt: skip
MEMORY = {"version": 1, "steps": [{"type": "TaskStep", "task": "harvest?", "images": []}]}


@pytest.fixture
def store(store_url, tmp_path):
    store = open_store(tmp_path / "data", store_url)
    yield store
    store.close()


def save(store, owner: str, conversation_id: str, chat=CHAT, **kwargs) -> bool:
    return store.save(owner, conversation_id, folder=f"f-{conversation_id}", messages=chat,
                      memory=kwargs.pop("memory", MEMORY), **kwargs)  # fmt: skip


def test_a_saved_conversation_comes_back_whole(store):
    upload = UploadInfo("report.pdf", "pdf", 1234, "ab" * 32, "report.pdf", pages=3)
    assert save(store, "alice", "c1", uploads=[upload])
    got = store.get("alice", "c1")
    assert got.messages == CHAT and got.memory == MEMORY
    assert got.title == "How much did the greenhouse harvest?"
    assert got.uploads == [upload] and got.folder == "f-c1" and got.turn_state == "done"
    assert got.created.tzinfo is not None and got.updated >= got.created


def test_only_the_owner_reads_writes_renames_or_deletes(store):
    save(store, "alice", "c1")
    assert store.get("mallory", "c1") is None
    assert store.get("alice", "c1-forged") is None
    assert not save(store, "mallory", "c1", chat=[{"role": "user", "content": "mine now"}])
    assert not store.rename("mallory", "c1", "pwned")
    assert not store.delete("mallory", "c1")
    assert store.delete_all("mallory") == 0
    assert store.list("mallory") == []
    assert store.get("alice", "c1").messages == CHAT


def test_list_is_newest_first_and_search_finds_titles_and_messages(store):
    save(store, "alice", "old", chat=[{"role": "user", "content": "tomato varieties"}])
    save(store, "alice", "new", chat=CHAT)
    save(store, "bob", "other", chat=CHAT)
    assert [c.id for c in store.list("alice")] == ["new", "old"]
    assert [c.id for c in store.list("alice", "kilogram")] == ["new"]  # prefix, in an answer
    assert [c.id for c in store.list("alice", "TOMATO")] == ["old"]
    assert store.list("alice", "harvest tomato") == []  # every word must match
    assert [c.id for c in store.list("alice", "\"'*) OR 1=1 --")] == []
    assert store.rename("alice", "old", "Seeds")
    assert [c.id for c in store.list("alice", "seeds")] == ["old"]


def test_delete_removes_the_files_too(store):
    save(store, "alice", "c1", uploads=[UploadInfo("a.txt", "text", 1, "00" * 32, "a.txt")])
    folder = store.upload_dir("f-c1")
    folder.mkdir(parents=True)
    (folder / "a.txt").write_text("x")
    store.image_dir("f-c1").mkdir(parents=True)
    assert store.delete("alice", "c1")
    assert store.get("alice", "c1") is None and not folder.exists()
    assert not store.image_dir("f-c1").exists()
    assert store.list("alice", "greenhouse") == []


def test_delete_all_and_retention(store):
    for name in ("a", "b"):
        save(store, "alice", name)
    save(store, "bob", "c")
    assert store.delete_all("alice") == 2 and store.list("alice") == []
    assert store.purge_older_than(30) == 0
    later = datetime.now(UTC) + timedelta(days=31)
    assert store.purge_older_than(30, now=later) == 1 and store.list("bob") == []


def test_a_corrupt_row_is_a_clear_error_and_the_others_still_work(store):
    save(store, "alice", "good")
    save(store, "alice", "bad")
    with store.session() as session, session.begin():
        session.execute(text("UPDATE conversation_messages SET data = :m "
                             "WHERE conversation_id = 'bad' AND position = 1"),
                        {"m": '["not", "a message"]'})  # fmt: skip
    with pytest.raises(CorruptConversationError, match="damaged"):
        store.get("alice", "bad")
    assert store.get("alice", "good").messages == CHAT
    assert {c.id for c in store.list("alice")} == {"good", "bad"}


def test_reopening_does_not_migrate_again(store_url, tmp_path):
    first = open_store(tmp_path / "data", store_url)
    save(first, "alice", "c1")
    first.close()
    second = open_store(tmp_path / "data", store_url)
    assert current_revision(second.engine) == head_revision()
    assert second.get("alice", "c1").messages == CHAT
    second.close()


def test_sqlite_by_default_in_the_data_folder_with_wal(tmp_path):
    store = open_store(tmp_path / "fresh" / "data")
    assert (tmp_path / "fresh" / "data" / "smolui.db").is_file()
    with store.engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    store.close()


def test_an_unreachable_database_names_the_url_without_the_password(tmp_path):
    from tests.postgres import _free_port

    url = f"postgresql+psycopg://app:hunter2@127.0.0.1:{_free_port()}/smolui"
    with pytest.raises(StoreUnavailableError) as caught:
        open_store(tmp_path, url)
    message = str(caught.value)
    assert "hunter2" not in message and "app:***@127.0.0.1" in message
    assert safe_url(url) in message
