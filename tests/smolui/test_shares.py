"""Read-only share links: kept as a digest with a snapshot of the branch shown, revoked at once,
shown by the app's own route as plain HTML that runs nothing and names none of the owner's
uploads or server paths, and refused to anonymous visitors where the operator says so.
Real SQLite and PostgreSQL, a real HTTP client."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from smolui.api.file_routes import FILES_PREFIX
from smolui.api.share_routes import SHARE_PREFIX, SHARING_MODES, ShareLinks
from smolui.auth import Identity
from smolui.conversations.keeper import ConversationKeeper
from smolui.render.durations import running_title
from smolui.render.share_page import (
    content_security_policy,
    markdown_html,
    share_page,
    share_snapshot,
)
from smolui.store import open_store
from smolui.store.shares import SHARES, ConversationShares

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32  # enough for a browser to ask for it
SIGNED_IN = Identity(provider="password", name="bob")


@pytest.fixture
def folders(tmp_path) -> dict[str, Path]:
    media, cache = tmp_path / "data" / "media" / "fa", tmp_path / "gradio-cache" / "up1"
    media.mkdir(parents=True)
    cache.mkdir(parents=True)
    (media / "chart.png").write_bytes(PNG)
    (cache / "holiday-photo.png").write_bytes(PNG + b"upload")
    return {"media": media, "cache": cache, "data": tmp_path / "data"}


def chat(folders: dict[str, Path]) -> list[dict]:
    upload = str(folders["cache"] / "holiday-photo.png")
    return [
        {"role": "user", "content": "Plot the sales from my file"},
        {"role": "user", "content": {"path": upload, "mime_type": "image/png"}},
        {"role": "assistant", "content": "", "metadata": {"title": "Step 1", "id": "s1"}},
        {
            "role": "assistant",
            "content": f"```python\nread('{folders['data']}/uploads/3f2a/sales.csv')\n```",
            "metadata": {"parent_id": "s1"},
        },
        {
            "role": "assistant",
            "content": {"path": str(folders["media"] / "chart.png"), "mime_type": "image/png"},
            "metadata": {"parent_id": "s1"},
        },
        {"role": "assistant", "content": "The best month is **March**.<script>alert(1)</script>"},
        {"role": "assistant", "content": f"**Files this turn wrote**\n\n- [a.csv]({FILES_PREFIX}/b/k/1/a.csv)"},
        {"role": "assistant", "content": "<sub>✓ answered · 1 step</sub>"},
    ]  # fmt: skip


@pytest.fixture
def keeper(store_url, folders):
    store = open_store(folders["data"], store_url)
    store.save("alice", "c1", folder="fa", messages=chat(folders), memory=None)
    roots = [str(folders["media"].parent), str(folders["cache"].parent)]
    keeper = ConversationKeeper(store, lambda: roots)
    yield keeper
    store.close()


def client_of(links: ShareLinks) -> TestClient:
    app = FastAPI()
    app.include_router(links.router())
    return TestClient(app)


def test_a_link_is_kept_as_a_digest_and_revoking_or_deleting_takes_it_back(keeper):
    shares = ConversationShares(keeper.store.engine)
    snapshot = {"messages": [{"role": "assistant", "meta": {}, "part": {"text": "hi"}}]}
    assert shares.create("mallory", "c1", snapshot) is None, "only the owner shares"
    token = shares.create("alice", "c1", snapshot)
    second = shares.create("alice", "c1", snapshot)
    assert token and second and token != second and len(token) >= 32
    assert shares.find(token).snapshot == snapshot and shares.find(token).title
    with keeper.store.engine.connect() as connection:
        stored = connection.execute(select(SHARES.c.token_hash)).scalars().all()
    assert token not in stored and len(stored) == 2, "the token itself is never stored"
    assert shares.active("alice", "c1") == 2
    assert shares.revoke("mallory", "c1") == 0 and shares.find(token) is not None
    assert shares.revoke("alice", "c1", digest=shares.list("alice", "c1")[0].digest) == 1
    assert shares.find(second) is None and shares.find(token) is not None, "newest first"
    assert shares.revoke("alice", "c1") == 1 and shares.find(token) is None
    listed = shares.list("alice", "c1")
    assert len(listed) == 2 and all(share.revoked is not None for share in listed)
    assert shares.find("x" * 500) is None and shares.find("") is None
    fresh = shares.create("alice", "c1", snapshot)
    assert keeper.store.delete("alice", "c1")
    assert shares.find(fresh) is None and shares.list("alice", "c1") == []


def test_the_shared_page_shows_the_snapshot_and_runs_nothing(keeper, folders):
    links = ShareLinks(keeper, "public")
    client = client_of(links)
    path = links.create("alice", "c1")
    assert path.startswith(SHARE_PREFIX + "/")
    keeper.store.save("alice", "c1", folder="fa", messages=[], memory=None)  # cleared since

    answer = client.get(path)
    assert answer.status_code == 200, answer.text
    page = answer.text
    assert "<strong>March</strong>" in page and "Step 1" in page, "the snapshot, not the chat now"
    assert "<details>" in page and "<pre><code" in page
    assert "&lt;script&gt;" in page and "<script" not in page, "raw HTML is shown, never run"
    for runnable in ("<input", "<textarea", "<form", "<button", "onclick"):
        assert runnable not in page, runnable
    assert "answered · 1 step" in page and "&lt;sub&gt;" not in page
    for leak in (str(folders["data"]), "/uploads/", "holiday-photo", FILES_PREFIX):
        assert leak not in page, f"{leak} leaked into the shared page"
    assert "sales.csv" in page and "not shared" in page
    assert "Attachment" in page and "📎" not in page, "words, not a symbol without a font"
    assert answer.headers["content-security-policy"] == content_security_policy()
    assert answer.headers["cache-control"] == "private, no-store"
    assert answer.headers["referrer-policy"] == "no-referrer"

    image = client.get(f"{path}/images/0")
    assert image.status_code == 200 and image.content == PNG
    assert image.headers["content-type"] == "image/png"
    assert client.get(f"{path}/images/1").status_code == 404

    assert links.stop("alice", "c1") == 1
    assert client.get(path).status_code == 404, "revoked: refused at the next request"
    assert client.get(f"{path}/images/0").status_code == 404
    assert client.get(f"{SHARE_PREFIX}/made-up-token").status_code == 404


def test_attachments_are_shared_only_when_the_owner_chooses(keeper):
    links = ShareLinks(keeper, "public")
    client = client_of(links)
    path = links.create("alice", "c1", include_uploads=True)
    page = client.get(path).text
    assert 'alt="holiday-photo.png"' in page and "not shared" not in page
    image = client.get(f"{path}/images/0")
    assert image.status_code == 200 and image.content == PNG + b"upload"
    assert "/gradio-cache/" not in page, "an image is named by its number, not its path"


def test_a_forged_snapshot_cannot_make_the_route_read_another_file(keeper, tmp_path):
    links = ShareLinks(keeper, "public")
    path = links.create("alice", "c1")
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"not for anyone")
    forged = {"messages": [], "images": [{"path": str(secret), "mime_type": "image/png"}]}
    with keeper.store.engine.begin() as connection:
        connection.execute(update(SHARES).values(snapshot=forged))
    assert client_of(links).get(f"{path}/images/0").status_code == 404


def test_who_may_open_a_link_is_the_operator_s_choice(keeper):
    path = ShareLinks(keeper, "public").create("alice", "c1")
    anonymous = ShareLinks(keeper, "signed-in", viewer=lambda request: Identity())
    assert client_of(anonymous).get(path).status_code == 401
    assert client_of(anonymous).get(f"{path}/images/0").status_code == 401
    signed_in = ShareLinks(keeper, "signed-in", viewer=lambda request: SIGNED_IN)
    assert client_of(signed_in).get(path).status_code == 200
    off = ShareLinks(keeper, "off")
    assert client_of(off).get(path).status_code == 404, "sharing off: no link opens"
    assert off.create("alice", "c1") is None
    assert ShareLinks(keeper, "public").create("mallory", "c1") is None
    assert ShareLinks(keeper, "public").create("alice", "no-such") is None
    with pytest.raises(ValueError, match="signed-in"):
        ShareLinks(keeper, "everyone")


def test_the_snapshot_leaves_out_uploads_download_lists_and_server_paths(folders):
    snapshot = share_snapshot(chat(folders), FILES_PREFIX)
    text = repr(snapshot["messages"])
    assert str(folders["cache"]) not in repr(snapshot) and FILES_PREFIX not in text
    assert str(folders["data"]) not in text and "sales.csv" in text
    assert [image["path"] for image in snapshot["images"]] == [
        str(folders["media"] / "chart.png")
    ], "only the agent's image"


def test_a_step_saved_while_running_shows_its_title_without_the_timer_s_start(folders):
    messages = chat(folders)
    messages[2]["metadata"]["title"] = running_title("Step 1 · running code…", 1_700_000_000)
    page = share_page("Sales", share_snapshot(messages, FILES_PREFIX), lambda index: "/i")
    assert "<summary>Step 1 · running code…</summary>" in page
    assert "step-clock" not in page and "since-" not in page


def test_markdown_is_rendered_with_no_raw_html_and_no_script_links():
    rendered = markdown_html(
        "[x](javascript:alert(1)) <img src=x onerror=alert(1)>\n\n| a |\n|---|\n| 1 |"
    )
    assert 'href="javascript' not in rendered
    assert "<img" not in rendered and "<table>" in rendered


def test_sharing_is_off_unless_the_operator_chooses(monkeypatch):
    from smolui.app.settings import settings_from_args
    from smolui.app.settings_checks import SHARING_MODES as SETTINGS_MODES

    assert SETTINGS_MODES == SHARING_MODES
    assert settings_from_args([], {}).sharing == "off"
    users = {"SMOLUI_AUTH": "password", "SMOLUI_USERS": "alice:$2b$04$" + "x" * 53}
    assert settings_from_args([], {"SMOLUI_SHARING": "signed-in", **users}).sharing == "signed-in"
    assert settings_from_args(["--sharing", "public"], {}).sharing == "public"
    with pytest.raises(SystemExit):
        settings_from_args([], {"SMOLUI_SHARING": "everyone"})
    with pytest.raises(SystemExit):  # nobody could sign in to open a link
        settings_from_args([], {"SMOLUI_SHARING": "signed-in"})


def memo_chat(folders: dict[str, Path]) -> list[dict]:
    """A chat about an attached PDF, named where a person sees it: their message, the note
    that it was attached, and the code that read it."""
    memo = folders["cache"] / "memo.pdf"
    memo.write_bytes(b"%PDF-1.4 the memo")
    return [
        {"role": "user", "content": "Summarize memo.pdf for me"},
        {"role": "user", "content": {"path": str(memo), "mime_type": "application/pdf"}},
        {"role": "assistant", "content": "✓ Attached memo.pdf (PDF, 1 page, 17 bytes)."},
        {"role": "assistant", "content": "", "metadata": {"title": "Step 1", "id": "s1"}},
        {
            "role": "assistant",
            "content": f"```python\nread('{folders['data']}/uploads/3f2a/memo.pdf')\n```",
            "metadata": {"parent_id": "s1"},
        },
        {"role": "assistant", "content": "The memo asks for a budget."},
    ]


def test_an_attachment_not_shared_is_named_nowhere_and_a_shared_one_downloads(keeper, folders):
    keeper.store.save("alice", "c2", folder="fa", messages=memo_chat(folders), memory=None)
    links = ShareLinks(keeper, "public")
    client = client_of(links)

    hidden = client.get(links.create("alice", "c2")).text
    assert "The memo asks for a budget." in hidden and "Attachment (not shared)" in hidden
    assert "memo.pdf" not in hidden, "not in the title, the note, the message or the code"
    assert "Attached (attachment) (PDF, 1 page" in hidden and "/files/" not in hidden

    path = links.create("alice", "c2", include_uploads=True)
    shared = client.get(path).text
    token = path.rsplit("/", 1)[-1]
    assert f'<a href="{token}/files/0" download="memo.pdf">memo.pdf</a>' in shared
    assert "Summarize memo.pdf" in shared, "shared: the name may show"
    download = client.get(f"{path}/files/0")
    assert download.status_code == 200 and download.content == b"%PDF-1.4 the memo"
    assert download.headers["content-type"] == "application/octet-stream"
    assert download.headers["content-disposition"].startswith('attachment; filename="memo.pdf"')
    assert client.get(f"{path}/files/1").status_code == 404
    assert links.stop("alice", "c2") == 2
    assert client.get(f"{path}/files/0").status_code == 404, "revoked: the file goes too"


def test_a_forged_snapshot_cannot_make_the_file_route_read_another_file(keeper, tmp_path):
    links = ShareLinks(keeper, "public")
    path = links.create("alice", "c1", include_uploads=True)
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"not for anyone")
    forged = {"messages": [], "files": [{"path": str(secret), "name": "secret.txt"}]}
    with keeper.store.engine.begin() as connection:
        connection.execute(update(SHARES).values(snapshot=forged))
    assert client_of(links).get(f"{path}/files/0").status_code == 404
