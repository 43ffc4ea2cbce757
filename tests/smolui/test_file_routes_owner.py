"""Files out behind sign-in: the real app with password sign-in serves a signed-in owner's files
to that owner only (another user gets the 404 an unknown file gets, a signed-out browser is told
to sign in), while an anonymous owner's link, and any link with sign-in off, is served on its
key alone. Real app on loopback, real store, real HTTP with gradio's own login cookie."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from smolui.api.file_routes import FILES_PREFIX, SIGN_IN_NEEDED, is_browser_key
from smolui.auth import hash_password
from smolui.render.downloads import file_url
from tests.e2e.harness import ScriptedApp

ALICE, BOB = ("alice", "wonderland"), ("bob", "builder")
BYTES = b"month,total\nJan,3\n"
ANONYMOUS_KEY = "k" * 43  # what a browser's `new_owner_key` looks like: no ":"


@pytest.fixture(scope="module")
def signed_app(tmp_path_factory) -> Iterator[ScriptedApp]:
    folder = tmp_path_factory.mktemp("files-owner")
    users = folder / "users.txt"
    users.write_text("".join(f"{n}:{hash_password(p, rounds=4)}\n" for n, p in (ALICE, BOB)))
    app = ScriptedApp(folder / "uploads", executor="local", auth_mode="password", users=str(users))
    yield app.start()
    app.stop()


@pytest.fixture(scope="module")
def open_app(tmp_path_factory) -> Iterator[ScriptedApp]:
    app = ScriptedApp(tmp_path_factory.mktemp("files-open") / "uploads", executor="local")
    yield app.start()
    app.stop()


def kept_files(app: ScriptedApp, owner: str, conversation_id: str, folder: Path) -> list:
    """Two files a turn of `owner`'s stored conversation wrote, kept as the turn keeps them."""
    app.ui.keeper.open()
    store = app.ui.keeper.store
    chat = [{"role": "user", "content": "Write a report"}]
    store.save(owner, conversation_id, folder=conversation_id, messages=chat, memory=None)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.csv").write_bytes(BYTES)
    (folder / "notes.txt").write_bytes(b"notes")
    found = [("report.csv", folder / "report.csv"), ("notes.txt", folder / "notes.txt")]
    kept = app.ui.downloads.outputs().keep(conversation_id, owner, conversation_id, found)
    assert kept.refused is None and len(kept.files) == 2
    return kept.files


@contextmanager
def signed_in(app: ScriptedApp, name: str, password: str) -> Iterator[httpx.Client]:
    """A client holding gradio's login cookie for `name`."""
    with httpx.Client(base_url=app.url, timeout=60) as client:
        answer = client.post("login", data={"username": name, "password": password})
        assert answer.status_code == 200, answer.text
        yield client


def links(files: list) -> tuple[str, str]:
    first = files[0]
    return file_url(FILES_PREFIX, first), f"{FILES_PREFIX}/{first.batch}/{first.key}/all.zip"


def test_a_signed_in_owner_s_files_go_to_that_owner_only(signed_app, tmp_path):
    one, zipped = links(kept_files(signed_app, "password:alice", "c-alice", tmp_path / "w"))
    with signed_in(signed_app, *ALICE) as alice:
        answer = alice.get(one)
        assert answer.status_code == 200 and answer.content == BYTES
        assert answer.headers["content-disposition"].startswith("attachment;")
        assert alice.get(zipped).status_code == 200
        forged = one.replace(f"/{one.split('/')[4]}/", "/not-the-key/")
        assert alice.get(forged).status_code == 404, "the key still counts for the owner"
    with signed_in(signed_app, *BOB) as bob:
        for link in (one, zipped):
            refused = bob.get(link)
            assert refused.status_code == 404 and refused.text == "No such file.", link
    with httpx.Client(base_url=signed_app.url, timeout=60) as stranger:
        for link in (one, zipped):
            refused = stranger.get(link)
            assert refused.status_code == 401 and refused.text == SIGN_IN_NEEDED, link
            assert BYTES not in refused.content
            assert refused.headers["cache-control"] == "private, no-store"


def test_an_anonymous_owner_s_link_is_served_on_its_key_even_with_sign_in_on(signed_app, tmp_path):
    # Sign-in may be optional: an anonymous browser's conversations belong to its random key,
    # which no cookie proves, so the link's key is all there is to check.
    assert is_browser_key(ANONYMOUS_KEY) and not is_browser_key("password:alice")
    one, zipped = links(kept_files(signed_app, ANONYMOUS_KEY, "c-anon", tmp_path / "w"))
    with httpx.Client(base_url=signed_app.url, timeout=60) as stranger:
        assert stranger.get(one).content == BYTES
        assert stranger.get(zipped).status_code == 200


def test_with_sign_in_off_the_link_works_for_whoever_holds_it(open_app, tmp_path):
    one, zipped = links(kept_files(open_app, ANONYMOUS_KEY, "c-open", tmp_path / "w"))
    with httpx.Client(base_url=open_app.url, timeout=60) as holder:
        answer = holder.get(one)
        assert answer.status_code == 200 and answer.content == BYTES
        assert holder.get(zipped).status_code == 200
        forged = one.replace(f"/{one.split('/')[4]}/", "/not-the-key/")
        assert holder.get(forged).status_code == 404


def test_the_panel_lists_a_conversation_s_files_for_its_owner_only(store_url, tmp_path):
    from smolui.render.panel import WRITTEN_HEADING, side_panel
    from smolui.store import open_store
    from smolui.store.outputs import OutputFiles
    from smolui.store.quota import OwnerQuota

    store = open_store(tmp_path / "data", store_url)
    try:
        chat = [{"role": "user", "content": "Write"}]
        store.save("password:alice", "c1", folder="fa", messages=chat, memory=None)
        outputs = OutputFiles(store.engine, store.files, OwnerQuota(store.engine, 0))
        (tmp_path / "a|b.csv").write_bytes(BYTES)
        kept = outputs.keep("c1", "password:alice", "fa", [("a|b.csv", tmp_path / "a|b.csv")])
        listed = outputs.of_conversation("c1", "password:alice")
        assert [(f.name, f.owner) for f in listed] == [("a|b.csv", "password:alice")]
        assert outputs.of_conversation("c1", "password:bob") == [], "someone else's: nothing"
        assert outputs.of_conversation("c2", "password:alice") == []

        panel = side_panel("scripted", None, "local", 5, [], written=listed,
                           url_prefix=FILES_PREFIX)  # fmt: skip
        assert WRITTEN_HEADING in panel and "No files yet" not in panel
        assert f"[a\\|b.csv]({file_url(FILES_PREFIX, kept.files[0])})" in panel
        assert "No files yet" in side_panel("scripted", None, "local", 5, [])
    finally:
        store.close()
