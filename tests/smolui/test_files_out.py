"""Files the agent's code wrote: kept with the conversation (all or nothing, within the owner's
quota), found again after the store reopens, served by the app's own route to the link's holder
only, and deleted with the conversation. Real SQLite and PostgreSQL, a real HTTP client."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from smolui.api.file_routes import FILES_PREFIX, file_router
from smolui.render.downloads import (
    OTHER_BRANCH,
    file_lines,
    file_url,
    is_downloads,
    place_files,
    render_downloads,
)
from smolui.store import UploadInfo, open_store
from smolui.store.files import work_folder
from smolui.store.outputs import OutputFiles
from smolui.store.quota import OwnerQuota
from smolui.turns.turn_files import snapshot, written_since

CHAT = [{"role": "user", "content": "Write a report"}]


def outputs_of(store, quota_bytes: int = 0) -> OutputFiles:
    return OutputFiles(store.engine, store.files, OwnerQuota(store.engine, quota_bytes))


def written(tmp_path: Path, files: dict[str, bytes]) -> list[tuple[str, Path]]:
    folder = tmp_path / "work"
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return [(name, folder / name) for name in files]


@pytest.fixture
def data_dir(tmp_path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def store(store_url, data_dir):
    store = open_store(data_dir, store_url)
    store.save("alice", "c1", folder="fa", messages=CHAT, memory=None)
    yield store
    store.close()


def test_a_turn_s_files_survive_a_reopened_store_and_go_with_the_conversation(
    store, store_url, data_dir, tmp_path
):
    found = written(tmp_path, {"report.csv": b"month,total\nJan,3\n", "charts/a.txt": b"A"})
    kept = outputs_of(store).keep("c1", "alice", "fa", found)
    assert kept.refused is None and [f.name for f in kept.files] == ["report.csv", "charts/a.txt"]
    first = kept.files[0]
    store.close()

    reopened = open_store(data_dir, store_url)  # as after a restart
    try:
        outputs = outputs_of(reopened)
        file, path = outputs.path_of(first.batch, first.key, first.id)
        assert file.name == "report.csv" and path.read_bytes() == b"month,total\nJan,3\n"
        assert outputs.batch(first.batch, "wrong-key") == []
        assert outputs.path_of(first.batch, "wrong-key", first.id) is None
        assert reopened.delete("alice", "c1")
        assert outputs.batch(first.batch, first.key) == [], "rows go with the conversation"
        assert not path.exists(), "bytes go with the conversation"
    finally:
        reopened.close()


def test_over_the_owner_s_quota_nothing_is_stored_and_the_owner_is_told_why(store, tmp_path):
    upload = UploadInfo("big.pdf", "pdf", 900, "ab" * 32, "big.pdf")
    store.save("alice", "c1", folder="fa", messages=CHAT, memory=None, uploads=[upload])
    outputs = outputs_of(store, quota_bytes=1000)
    found = written(tmp_path, {"a.bin": b"x" * 60, "b.bin": b"y" * 60})
    kept = outputs.keep("c1", "alice", "fa", found)
    assert kept.files == [] and "Not stored" in kept.refused and "MB" in kept.refused
    assert outputs.quota.used("alice") == 900, "the refused batch counts nothing"
    assert not store.files.outputs_dir("fa", "alice").exists(), "nothing half-stored"
    small = outputs.keep("c1", "alice", "fa", found[:1])
    assert small.refused is None and outputs.quota.used("alice") == 960
    assert outputs.quota.used("bob") == 0, "the quota is per owner"


def test_the_route_serves_the_link_s_holder_and_gives_anyone_else_a_404(store, tmp_path):
    found = written(tmp_path, {"report.csv": b"a,b\n1,2\n", "notes.txt": b"hello"})
    outputs = outputs_of(store)
    files = outputs.keep("c1", "alice", "fa", found).files
    app = FastAPI()
    app.include_router(file_router(lambda: outputs))
    client = TestClient(app)

    answer = client.get(file_url(FILES_PREFIX, files[0]))
    assert answer.status_code == 200 and answer.content == b"a,b\n1,2\n"
    assert answer.headers["content-disposition"].startswith('attachment; filename="report.csv"')
    assert answer.headers["x-content-type-options"] == "nosniff"
    batch, key = files[0].batch, files[0].key
    zipped = client.get(f"{FILES_PREFIX}/{batch}/{key}/all.zip")
    with zipfile.ZipFile(io.BytesIO(zipped.content)) as archive:
        assert archive.read("notes.txt") == b"hello" and archive.read("report.csv") == b"a,b\n1,2\n"
    for guess in (
        f"{FILES_PREFIX}/{batch}/not-the-key/{files[0].id}/report.csv",
        f"{FILES_PREFIX}/{batch}/not-the-key/all.zip",
        f"{FILES_PREFIX}/{'0' * 32}/{key}/{files[0].id}/report.csv",
        f"{FILES_PREFIX}/{batch}/{key}/999999/report.csv",
    ):
        assert client.get(guess).status_code == 404, guess


def test_only_files_new_or_changed_during_the_turn_are_offered(tmp_path):
    folder = work_folder(tmp_path / "uploads" / "owner" / "fa")
    assert folder.name == ".work-fa" and folder.parent.name == "owner"
    folder.mkdir(parents=True)
    (folder / "old.txt").write_text("before")
    (folder / "same.txt").write_text("kept")
    before = snapshot(folder)
    (folder / "old.txt").write_text("changed!")
    (folder / "sub").mkdir()
    (folder / "sub" / "new.csv").write_text("1,2")
    (folder / "link").symlink_to(folder / "same.txt")
    # A library's cache in the code's home (matplotlib's font list) is not an answer's file.
    (folder / ".matplotlib").mkdir()
    (folder / ".matplotlib" / "fontlist-v3.11.0.json").write_text("{}")
    (folder / ".hidden.txt").write_text("settings")
    assert [name for name, _ in written_since(folder, before)] == ["old.txt", "sub/new.csv"]


def test_the_download_list_escapes_names_and_offers_a_zip_for_several():
    class File:
        def __init__(self, id, name, size):
            self.id, self.name, self.size = id, name, size
            self.batch, self.key = "b" * 32, "k"

    one = render_downloads([File(1, "[x](javascript:alert(1)).txt", 10)], "/p")
    assert "javascript:alert(1))" not in one["content"].split("](/p")[0]
    assert "Download all" not in one["content"] and is_downloads(one, "/p")
    two = render_downloads([File(1, "a.txt", 10), File(2, "b.txt", 2048)], "/p")
    assert "[Download all (.zip)](/p/" + "b" * 32 + "/k/all.zip)" in two["content"]
    assert "2.0 KB" in two["content"]
    assert not is_downloads({"role": "assistant", "content": "plain"}, "/p")


def test_the_quota_is_a_setting_with_a_default_and_a_clear_refusal_when_negative():
    from smolui.app.settings import Settings, settings_from_args
    from smolui.app.settings_checks import validate

    assert Settings().owner_quota_mb > 0, "a public server keeps a bounded amount per person"
    chosen = settings_from_args([], {"SMOLUI_OWNER_QUOTA_MB": "5"})
    assert chosen.owner_quota_mb == 5.0 and validate(chosen) is None
    assert "owner_quota_mb" in validate(chosen.with_changes(owner_quota_mb=-1))


def test_the_zip_is_named_after_the_conversation_s_title(store, tmp_path):
    outputs = outputs_of(store)
    files = outputs.keep("c1", "alice", "fa", written(tmp_path, {"a.txt": b"A", "b.txt": b"B"}))
    app = FastAPI()
    app.include_router(file_router(lambda: outputs))
    client = TestClient(app)
    url = f"{FILES_PREFIX}/{files.files[0].batch}/{files.files[0].key}/all.zip"

    def saved_as() -> str:
        answer = client.get(url)
        assert answer.status_code == 200
        return answer.headers["content-disposition"]

    assert saved_as().startswith('attachment; filename="Write a report - files.zip"')
    store.rename("alice", "c1", "Sales: Q3/Q4 <draft>?")
    assert 'filename="Sales Q3 Q4 draft - files.zip"' in saved_as()
    store.rename("alice", "c1", "Ventes d’été")
    disposition = saved_as()
    assert "filename*=UTF-8''Ventes%20d%E2%80%99%C3%A9t%C3%A9%20-%20files.zip" in disposition
    store.rename("alice", "c1", "???")
    assert saved_as().startswith('attachment; filename="smolui-files.zip"')


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("Monthly sales", "Monthly sales - files.zip"),
        ("  a\tb\nc  ", "a b c - files.zip"),
        ("..", "smolui-files.zip"),
        ("", "smolui-files.zip"),
        (None, "smolui-files.zip"),
        ("x" * 300, "x" * 80 + " - files.zip"),
    ],
)
def test_a_zip_name_is_safe_for_any_title(title, name):
    from smolui.api.file_routes import zip_name

    assert zip_name(title) == name


def test_the_panel_says_which_message_s_turn_wrote_each_same_named_file(store, tmp_path):
    # Three turns on the branch shown (the second wrote nothing; the third was sent with a
    # file), and a turn of another branch: all wrote report.csv.
    outputs = outputs_of(store)
    first, third, elsewhere = (
        outputs.keep("c1", "alice", "fa", written(tmp_path / str(n), {"report.csv": b"x"}))
        .files[0]
        for n in range(3)
    )  # fmt: skip
    chat = [
        {"role": "user", "content": "Write the report"},
        {"role": "assistant", "content": "Written."},
        render_downloads([first], FILES_PREFIX),
        {"role": "user", "content": "Thanks"},
        {"role": "assistant", "content": "You are welcome."},
        {"role": "user", "content": {"path": "/uploads/march.csv"}},
        {"role": "user", "content": [{"type": "text", "text": "Again with March"}]},
        {"role": "assistant", "content": "Written again."},
        render_downloads([third], FILES_PREFIX),
    ]
    listed = outputs.of_conversation("c1", "alice")
    lines = file_lines(place_files(listed, chat, FILES_PREFIX), FILES_PREFIX)
    assert lines == [
        f"- [report.csv · message 1]({file_url(FILES_PREFIX, first)}) · 1 B",
        f"- [report.csv · message 3]({file_url(FILES_PREFIX, third)}) · 1 B",
        f"- [report.csv · {OTHER_BRANCH}]({file_url(FILES_PREFIX, elsewhere)}) · 1 B",
    ]
    unread = file_lines(place_files(listed, None, FILES_PREFIX), FILES_PREFIX)
    assert unread[0] == f"- [report.csv]({file_url(FILES_PREFIX, first)}) · 1 B"
    assert "message" not in render_downloads([third], FILES_PREFIX)["content"], (
        "the list under a turn's own answer needs no place"
    )
