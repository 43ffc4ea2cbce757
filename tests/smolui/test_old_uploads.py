"""Stored conversations' upload folders left in `./uploads` by an older version move into the
data folder at start; nothing is overwritten, and only folders the store knows move.

Real parts: a SQLite file (and the real PostgreSQL server), folders on disk, the app's own
`attach_store` and the keeper that resumes a conversation with its files.
"""

from __future__ import annotations

import errno
import hashlib
from pathlib import Path

import pytest

from smolui.app.settings import Settings
from smolui.conversations.keeper import attach_store
from smolui.sessions import SessionRegistry
from smolui.store import UploadInfo, open_store
from smolui.store.old_uploads import move_old_uploads
from smolui.uploads.folders import owner_folder

FOLDER = "0123456789abcdef"
OWNER = "alice-owner-key"
NOTES = b"Bay three harvested 412 kilograms.\n"


@pytest.fixture
def place(tmp_path, monkeypatch) -> Path:
    """The app's working directory: `./uploads` as an older version left it, `./data` empty."""
    monkeypatch.chdir(tmp_path)
    old = tmp_path / "uploads" / FOLDER
    old.mkdir(parents=True)
    (old / "notes.txt").write_bytes(NOTES)
    (tmp_path / "uploads" / "fedcba9876543210").mkdir()  # no stored conversation has it
    (tmp_path / "uploads" / "fedcba9876543210" / "stray.txt").write_text("stray")
    (tmp_path / "uploads" / ".gitkeep").write_text("")
    return tmp_path


def store_conversation(data: Path, url: str | None = None) -> None:
    store = open_store(data, url)
    upload = UploadInfo("notes.txt", "text", len(NOTES), hashlib.sha256(NOTES).hexdigest(),
                        "notes.txt")  # fmt: skip
    assert store.save(OWNER, "conversation-1", folder=FOLDER, messages=[], memory=None,
                      uploads=[upload])  # fmt: skip
    store.close()


def start(data: Path, **settings) -> tuple[SessionRegistry, object]:
    """What the app does at start: its registry, the store attached to it, then opened."""
    settings = Settings(data_dir=str(data), **settings)
    root = Path(settings.upload_folder or data / "uploads")
    registry = SessionRegistry(lambda folder: None, upload_root=root, media_root=data / "media")
    keeper = attach_store(registry, settings, lambda: [])
    keeper.open()
    return registry, keeper


def test_a_stored_conversation_s_old_folder_moves_and_the_conversation_finds_its_file(
    place, store_url
):
    data = place / "data"
    store_conversation(data, store_url)
    registry, keeper = start(data, database_url=store_url)
    moved = data / "uploads" / owner_folder(OWNER) / FOLDER / "notes.txt"
    assert moved.read_bytes() == NOTES
    assert not (place / "uploads" / FOLDER).exists()
    assert (place / "uploads" / "fedcba9876543210" / "stray.txt").exists(), "not ours: stays"
    assert (place / "uploads" / ".gitkeep").exists()
    resumed = keeper.resume("conversation-1")
    assert [Path(f.stored_path) for f in resumed.files] == [moved]
    keeper.store.close()


def test_nothing_is_overwritten_and_a_second_start_moves_nothing(place):
    data = place / "data"
    store_conversation(data)
    there = data / "uploads" / owner_folder(OWNER) / FOLDER
    there.mkdir(parents=True)
    (there / "notes.txt").write_text("newer")
    _, keeper = start(data)
    assert (there / "notes.txt").read_text() == "newer"
    assert (place / "uploads" / FOLDER / "notes.txt").read_bytes() == NOTES, "left in place"
    assert move_old_uploads(keeper.store) == 0
    keeper.store.close()


def test_an_upload_folder_the_operator_chose_is_left_alone(place):
    data = place / "data"
    store_conversation(data)
    _, keeper = start(data, upload_folder=str(place / "elsewhere"))
    assert (place / "uploads" / FOLDER / "notes.txt").exists()
    assert not (place / "elsewhere").exists() and not (data / "uploads").exists()
    keeper.store.close()
    _, keeper = start(data, upload_folder="uploads")  # still the old place: nothing moves
    assert (place / "uploads" / FOLDER / "notes.txt").exists()
    keeper.store.close()


def test_across_file_systems_the_folder_is_copied_whole_then_removed(place, monkeypatch):
    data = place / "data"
    store_conversation(data)
    store = open_store(data)
    real_rename = Path.rename

    def rename(self: Path, target):  # what rename(2) does between two file systems
        if self.name == FOLDER and self.parent.name == "uploads" and self.parent.parent == place:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", rename)
    assert move_old_uploads(store) == 1
    moved = data / "uploads" / owner_folder(OWNER) / FOLDER
    assert (moved / "notes.txt").read_bytes() == NOTES
    assert not (place / "uploads" / FOLDER).exists()
    assert [p.name for p in moved.parent.iterdir()] == [FOLDER], "no partial copy left"
    store.close()
