"""Red-team findings against the served app, over HTTP as an attacker of a public Space would
send them: a foreign site signing a visitor in (login CSRF), and gradio's upload route
writing to the disk without bound for anonymous visitors."""

from __future__ import annotations

import os
from collections.abc import Iterator

import httpx
import pytest

from smolui.auth import hash_password
from tests.e2e.harness import ScriptedApp

ALICE = ("alice", "wonderland")
KB = 1024


@pytest.fixture(scope="module")
def signed_app(tmp_path_factory) -> Iterator[ScriptedApp]:
    folder = tmp_path_factory.mktemp("redteam-login")
    users = folder / "users.txt"
    users.write_text(f"{ALICE[0]}:{hash_password(ALICE[1], rounds=4)}\n")
    app = ScriptedApp(folder / "uploads", executor="local", auth_mode="password",
                      users=str(users))  # fmt: skip
    yield app.start()
    app.stop()


def login(app: ScriptedApp, **headers: str) -> httpx.Response:
    form = {"username": ALICE[0], "password": ALICE[1]}
    return httpx.post(app.url + "login", data=form, headers=headers, timeout=60)


def test_a_foreign_site_cannot_sign_a_visitor_in(signed_app):
    # A page elsewhere posts the attacker's name and password from the visitor's browser:
    # the visitor would then chat and upload into the attacker's account.
    for origin in ("https://evil.example", "null", f"http://127.0.0.1:{signed_app.port + 1}"):
        refused = login(signed_app, Origin=origin)
        assert refused.status_code == 403, origin
        assert not refused.headers.get_list("set-cookie"), origin
        assert "own page" in refused.json()["detail"]


def test_the_app_s_own_page_and_scripts_still_sign_in(signed_app):
    own = login(signed_app, Origin=signed_app.url.rstrip("/"))
    assert own.status_code == 200 and own.headers.get_list("set-cookie")
    # A public host name: the browser's Origin names the default port the Host leaves out.
    public = login(signed_app, Origin="https://chat.example.org", Host="chat.example.org")
    assert public.status_code == 200
    assert login(signed_app).status_code == 200  # no Origin: not a browser acting for anyone


@pytest.fixture(scope="module")
def anonymous_app(tmp_path_factory) -> Iterator[ScriptedApp]:
    folder = tmp_path_factory.mktemp("redteam-uploads")
    # Small files so the test stays small; one trusted proxy, played by the test.
    app = ScriptedApp(folder / "uploads", executor="local", max_file_size_mb=0.05, max_files=2,
                      trust_proxy=True, trusted_proxies=1)  # fmt: skip
    yield app.start()
    app.stop()


def upload(app: ScriptedApp, count: int, size: int, address: str) -> httpx.Response:
    files = [("files", (f"f{i}.bin", os.urandom(size), "application/octet-stream"))
             for i in range(count)]  # fmt: skip
    headers = {"X-Forwarded-For": f"10.0.0.1, {address}"}
    return httpx.post(app.url + "gradio_api/upload", files=files, headers=headers, timeout=60)


def test_one_upload_carries_at_most_one_message_s_files(anonymous_app):
    assert upload(anonymous_app, 2, 50 * KB, "198.51.100.10").status_code == 200
    # Each file under the size limit, but far more of them than a message may carry: gradio
    # alone takes up to 1,000 such parts in one request, straight into its cache.
    many = upload(anonymous_app, 40, 50 * KB, "198.51.100.10")
    assert many.status_code == 413
    assert "at most 2 files" in many.json()["detail"]


def test_many_tiny_files_in_one_upload_are_refused(anonymous_app):
    # 400 files of 8 bytes fit in a message's bytes, and each costs the cache a folder.
    tiny = upload(anonymous_app, 400, 8, "198.51.100.11")
    assert tiny.status_code == 413
    assert "at most 2 files" in tiny.json()["detail"]
    assert upload(anonymous_app, 2, 8, "198.51.100.11").status_code == 200


def test_one_address_may_send_a_bounded_number_of_uploads_an_hour(anonymous_app):
    # Tiny uploads pass the byte budget; their number is bounded (a message's files each).
    statuses = [upload(anonymous_app, 1, 8, "203.0.113.30").status_code for _ in range(45)]
    assert statuses[:40] == [200] * 40 and set(statuses[40:]) == {429}


def test_one_address_may_upload_a_bounded_amount_an_hour(anonymous_app):
    accepted = 0
    for _ in range(60):  # 60 messages' worth: three times what an hour allows
        response = upload(anonymous_app, 2, 50 * KB, "203.0.113.20")
        if response.status_code != 200:
            break
        accepted += 1
    assert response.status_code == 429, "an address uploaded without bound"
    assert "Too many uploads from your address" in response.json()["detail"]
    assert int(response.headers["retry-after"]) > 0
    # 20 messages' worth at their largest (2 files of 0.05 MB each, with their framing);
    # these ~0.1 MB uploads fit about 34 times, and at least the 20 a full hour allows.
    assert 20 <= accepted <= 36
    # Other visitors are not held up by one address's flood.
    assert upload(anonymous_app, 2, 50 * KB, "203.0.113.21").status_code == 200


@pytest.fixture(scope="module")
def proxied_app(tmp_path_factory) -> Iterator[ScriptedApp]:
    # Sign-in off, no API key, behind a proxy on this machine (SMOLUI_TRUST_PROXY=1).
    folder = tmp_path_factory.mktemp("redteam-proxy")
    app = ScriptedApp(folder / "uploads", executor="local", trust_proxy=True, trusted_proxies=1)
    yield app.start()
    app.stop()


def test_behind_a_proxy_the_key_less_api_door_needs_a_forwarded_local_client(proxied_app):
    models = proxied_app.url + "v1/models"
    # A proxy that adds no X-Forwarded-For (nginx's default) and rewrites Host to its
    # upstream: the internet's request reaches the app from 127.0.0.1, naming 127.0.0.1.
    host = {"Host": f"127.0.0.1:{proxied_app.port}"}
    stripped = httpx.get(models, headers=host, timeout=30)
    assert stripped.status_code == 403, "a proxied stranger used the key-less API"
    stranger = httpx.get(models, headers={**host, "X-Forwarded-For": "203.0.113.9"}, timeout=30)
    assert stranger.status_code == 403
    local = httpx.get(models, headers={**host, "X-Forwarded-For": "127.0.0.1"}, timeout=30)
    assert local.status_code == 200  # someone on this machine, through the proxy


def test_a_proxy_nobody_declared_does_not_open_the_key_less_api_door(tmp_path):
    # Sign-in off, no key, SMOLUI_TRUST_PROXY unset, yet a proxy on this machine forwards
    # the internet to the app: its forwarding headers give it away.
    app = ScriptedApp(tmp_path / "uploads", executor="local").start()
    try:
        models, host = app.url + "v1/models", {"Host": f"127.0.0.1:{app.port}"}
        assert httpx.get(models, headers=host, timeout=30).status_code == 200  # this machine
        for header in ("X-Forwarded-For", "X-Real-IP", "Forwarded"):
            value = "for=203.0.113.9" if header == "Forwarded" else "203.0.113.9"
            proxied = httpx.get(models, headers={**host, header: value}, timeout=30)
            assert proxied.status_code == 403, header
    finally:
        app.stop()
