"""Uploads held to the owner's byte quota where a turn's files are stored (the page's turns and
the API's go through `prepare_request`): over it, every file of the message is refused with the
quota's message and nothing is stored. A real store (SQLite, and PostgreSQL where configured)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from smolui.api.downloads import Downloads
from smolui.sessions import Session
from smolui.store import UploadInfo, open_store
from smolui.turns.pending import PendingTurn
from smolui.turns.request import prepare_request
from smolui.uploads import UploadPolicy

MB = 1024 * 1024
QUOTA_BYTES = 1000
CHAT = [{"role": "user", "content": "Read this"}]
TEXT_MODEL = SimpleNamespace(model=SimpleNamespace(supports_images=False))


@pytest.fixture
def store(store_url, tmp_path):
    store = open_store(tmp_path / "data", store_url)
    kept = UploadInfo("old.pdf", "pdf", 900, "ab" * 32, "old.pdf")  # 900 of alice's 1000 bytes
    store.save("alice", "c1", folder="fa", messages=CHAT, memory=None, uploads=[kept])
    yield store
    store.close()


@pytest.fixture
def room(store):
    """The app's check, as `GradioUI` hands it to the turns."""
    return Downloads(SimpleNamespace(store=store), QUOTA_BYTES / MB, lambda: "m").upload_room


def prepared(store, tmp_path, room, owner: str, size: int):
    session = Session(id=f"c-{owner}", folder=f"f-{owner}", upload_root=store.upload_root,
                      make_agent=lambda folder: None, owner=owner)  # fmt: skip
    sent = tmp_path / "notes.txt"
    sent.write_bytes(b"a" * size)
    pending = PendingTurn.message("Summarize it", [str(sent)])
    return session, prepare_request(session, TEXT_MODEL, pending, UploadPolicy(), 10, room)


def test_an_upload_past_the_owner_s_quota_is_refused_and_not_stored(store, tmp_path, room):
    session, result = prepared(store, tmp_path, room, "alice", 200)
    assert [f.display_name for f in result.refused] == ["notes.txt"]
    assert result.refused[0].reason.startswith("Not stored: your files would take")
    assert session.files == []
    assert not session.upload_dir.exists() or not any(session.upload_dir.rglob("notes*"))
    notes = " ".join(str(note["content"]) for note in result.notes)
    assert "Could not attach notes.txt: Not stored" in notes
    assert result.request is not None and "notes.txt" not in result.request.task  # text still runs


def test_an_upload_within_the_quota_is_stored(store, tmp_path, room):
    session, result = prepared(store, tmp_path, room, "alice", 50)
    assert result.refused == []
    assert [f.display_name for f in session.files] == ["notes.txt"]


def test_another_owner_s_files_do_not_count(store, tmp_path, room):
    session, result = prepared(store, tmp_path, room, "bob", 200)
    assert result.refused == [] and len(session.files) == 1
