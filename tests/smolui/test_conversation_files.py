"""A conversation's files live in the data folder, per owner, and go with the conversation.

Real parts: a SQLite file and the real PostgreSQL server, files written by the tests, a real
CodeAgent on the local executor with the real document tools; only the model is scripted.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agents.loop.code_agent import CodeAgent
from agents.models.messages import content_text
from agents.models.scripted import ScriptedModel
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from smolui.uploads.folders import owner_folder
from tests.smolui.app_process import AppProcess
from tools.documents import document_tools

RULES = {
    "read my notes": "<code>\nfinal_answer(read_document('notes.txt'))\n</code>",
    "draw": (
        "<code>\nfrom PIL import Image\n"
        "final_answer(Image.new('RGB', (8, 8), (200, 40, 40)))\n</code>"
    ),
}
NOTES = "The greenhouse used 300 litres of water on Tuesday.\n"


def reply(messages: list[dict]) -> str:
    tasks = [content_text(m.get("content")) for m in messages if m.get("role") == "user"]
    latest = next((t for t in reversed(tasks) if "New task:" in t), "")
    return next((code for key, code in RULES.items() if key in latest), "no rule")


class App(AppProcess):
    """One app process on a data folder: its uploads and media there, as the app lays them."""

    def __init__(self, url: str, data: Path):
        self.models: list[ScriptedModel] = []
        super().__init__(
            SessionRegistry(self._agent, data / "uploads", media_root=data / "media"),
            open_store(data, url, data / "uploads", data / "media"),
            [str(data / "media")],
        )

    def _agent(self, upload_dir: Path) -> CodeAgent:
        model = ScriptedModel([reply], loop=True)
        self.models.append(model)
        return CodeAgent(
            document_tools(upload_dir),
            model,
            executor_type="local",
            additional_authorized_imports=["PIL", "PIL.*"],
            verbosity_level=-1,
        )


@pytest.fixture
def data(tmp_path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def notes(tmp_path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text(NOTES)
    return path


def answers(chat: list) -> list[str]:
    return [
        m["content"] for m in chat if m["role"] == "assistant" and isinstance(m["content"], str)
    ]


def image_paths(chat: list) -> list[Path]:
    found = []
    for message in chat:
        content = message["content"]
        items = content if isinstance(content, list) else [content]
        for item in items:
            file = item.get("file", item) if isinstance(item, dict) else None
            if isinstance(file, dict) and str(file.get("path", "")).endswith(".png"):
                found.append(Path(file["path"]))
    return sorted(set(found))  # a step and the answer may show the same image


def test_an_upload_lives_in_the_data_folder_and_a_tool_reads_it_after_a_restart(
    store_url, data, notes
):
    first = App(store_url, data)
    conversation_id, chat, state, _ = first.pages.load(None)
    first.send("keep these", conversation_id, chat, files=(str(notes),))
    first.close()  # the process ends; nothing of the conversation stays in memory

    owner = state["owner"]
    (kept,) = list((data / "uploads").rglob("notes.txt"))
    assert kept.read_text() == NOTES
    assert kept.parent.parent == data / "uploads" / owner_folder(owner), "kept per owner"
    assert owner not in str(kept) and conversation_id not in str(kept), "no secret in paths"

    second = App(store_url, data)
    again, chat, _, _ = second.pages.load(state)
    assert again == conversation_id
    assert [f.display_name for f in second.registry.get(again).files] == ["notes.txt"]
    chat = second.send("read my notes", again, chat)
    assert any("300 litres" in a for a in answers(chat)), answers(chat)
    second.close()


def test_deleting_a_conversation_deletes_its_uploads_and_images(store_url, data, notes):
    app = App(store_url, data)
    conversation_id, chat, state, _ = app.pages.load(None)
    chat = app.send("draw a red square", conversation_id, chat, files=(str(notes),))
    images = image_paths(chat)  # the step's output and the answer
    media = data / "media" / owner_folder(state["owner"])
    assert images and all(i.is_file() and i.is_relative_to(media) for i in images)
    upload = next((data / "uploads").rglob("notes.txt"))
    app.pages.delete(conversation_id, state)
    assert not any(i.exists() for i in images) and not upload.exists()
    assert not images[0].parent.exists() and not upload.parent.exists()
    app.close()


def test_a_restored_conversation_still_shows_its_images_after_a_restart(store_url, data):
    first = App(store_url, data)
    conversation_id, chat, state, _ = first.pages.load(None)
    images = image_paths(first.send("draw a red square", conversation_id, chat))
    first.close()
    second = App(store_url, data)
    _, restored, _, _ = second.pages.load(state)
    assert images and image_paths(restored) == images and all(i.is_file() for i in images)
    assert "no longer available" not in str(restored)
    second.close()


def test_delete_all_and_retention_remove_every_file_of_the_conversations(store_url, data, notes):
    app = App(store_url, data)
    first, chat, state, _ = app.pages.load(None)
    app.send("draw a red square", first, chat, files=(str(notes),))
    second, chat, _, _ = app.pages.new_chat(state)
    app.send("draw a red square", second, chat, files=(str(notes),))
    other, chat, other_state, _ = app.pages.load(None)  # another owner keeps theirs
    app.send("draw a red square", other, chat, files=(str(notes),))
    assert len(list(data.rglob("notes.txt"))) == 3
    folders = [app.keeper.find(state["owner"], c).folder for c in (first, second)]
    mine = owner_folder(state["owner"])
    places = [data / "uploads" / mine, data / "media" / mine]
    places += [data / "memory-images" / f for f in folders]  # images in the agent's memory
    assert all(any(p.is_file() for p in place.rglob("*")) for place in places)
    app.pages.delete_all(state)
    assert not any(p.is_file() for place in places for p in place.rglob("*"))
    left = [p for p in data.rglob("*") if p.is_file() and p.suffix in (".png", ".txt")]
    assert left and not any(mine in str(p) or any(f in str(p) for f in folders) for p in left)
    later = datetime.now(UTC) + timedelta(days=40)
    assert app.keeper.store.purge_older_than(30, now=later) == 1
    assert [p for p in data.rglob("*") if p.is_file() and p.suffix in (".png", ".txt")] == []
    app.close()


def test_a_damaged_folder_name_never_deletes_outside_its_own_folders(store_url, data, tmp_path):
    store = open_store(data, store_url)
    outside = data / "uploads" / "keep"
    outside.mkdir(parents=True)
    (outside / "precious.txt").write_text("x")
    store.save("alice", "c1", folder="../uploads/keep", messages=[], memory=None)
    assert store.delete("alice", "c1")
    assert (outside / "precious.txt").exists()
    store.close()


def test_a_conversation_saved_before_owner_folders_keeps_its_files(store_url, data):
    store = open_store(data, store_url)
    legacy = data / "uploads" / "0123456789abcdef"
    legacy.mkdir(parents=True)
    (legacy / "old.txt").write_text("old")
    store.save("alice", "c1", folder="0123456789abcdef", messages=[], memory=None)
    store.files.adopt_unscoped("0123456789abcdef", "alice")
    moved = store.upload_dir("0123456789abcdef", "alice")
    assert moved.parent.name == owner_folder("alice") and (moved / "old.txt").read_text() == "old"
    assert not legacy.exists()
    assert store.delete("alice", "c1") and not moved.exists()
    legacy.mkdir()  # files left where they were are deleted with the conversation too
    store.save("alice", "c2", folder="0123456789abcdef", messages=[], memory=None)
    assert store.delete("alice", "c2") and not legacy.exists()
    store.close()


def test_the_app_keeps_uploads_and_media_in_its_data_folder(tmp_path):
    from agents.models.scripted import ScriptedModel as Model
    from smolui.app.gradio_ui import GradioUI
    from smolui.app.settings import Settings

    def make() -> CodeAgent:
        return CodeAgent([], Model(["no"], loop=True), executor_type="local")

    data = tmp_path / "data"
    ui = GradioUI(make, settings=Settings(data_dir=str(data), executor="local"))
    assert ui.upload_root == data / "uploads" and ui.registry.media_root == data / "media"
    (data / "media").mkdir(parents=True)
    (data / "smolui.db").write_bytes(b"")
    private = ui._private_paths()
    assert str((data / "smolui.db").resolve()) in private
    assert str((data / "uploads").resolve()) in private
    assert not any(os.path.commonpath([p, str((data / "media").resolve())]) == p for p in private)
    from gradio.utils import is_allowed_file

    allowed = [str((data / "media").resolve())]
    image = (data / "media" / "o" / "f" / "a.png").resolve()
    assert is_allowed_file(image, private, allowed, [])[0], "the chat shows the agent's images"
    for secret in (data / "smolui.db", data / "uploads" / "o" / "f" / "notes.txt"):
        assert not is_allowed_file(secret.resolve(), private, allowed, [])[0]
