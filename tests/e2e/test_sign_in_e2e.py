"""Password sign-in through gradio's real login page, in Chromium; nothing answers before it."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from smolui.auth import hash_password
from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, wait_turn_done

pytestmark = pytest.mark.e2e
PASSWORDS = {"alice": "wonderland", "bob": "builder"}
SLOW = 30_000  # ms: the page reloads after sign-in on a busy 2-core machine


@pytest.fixture(scope="module")
def signed_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    folder = tmp_path_factory.mktemp("sign-in")
    users = folder / "users.txt"
    users.write_text("".join(f"{n}:{hash_password(p, rounds=4)}\n" for n, p in PASSWORDS.items()))
    app = ScriptedApp(
        folder / "uploads",
        executor="local",
        auth_mode="password",
        users=str(users),
        admins=("bob",),
        turns_per_day=50,
    )
    app.script = lambda: ["<code>\nfinal_answer('hello from the agent')\n</code>"]
    yield app.start()
    app.stop()


def status_of(url: str, data: bytes | None = None) -> int:
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def sign_in(page, name: str, password: str, accepted: bool = True) -> None:
    page.get_by_label("username").fill(name)
    page.get_by_label("password").fill(password)
    page.get_by_role("button", name="Login").click()
    if accepted:  # the chat page loads, then opens the message box for its owner
        expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=SLOW)


def test_nothing_answers_before_sign_in(signed_app):
    base = signed_app.url
    assert status_of(base + "config") == 401
    assert status_of(base + "gradio_api/info") == 401
    join = json.dumps({"data": [], "fn_index": 0, "session_hash": "forged"}).encode()
    assert status_of(base + "gradio_api/queue/join", join) == 401
    assert status_of(base + "healthz") == 200  # health checks stay open for load balancers


def test_password_sign_in_then_chat_and_find_it_from_another_browser(signed_app, new_page):
    page = new_page(signed_app.url)
    sign_in(page, "alice", "not her password", accepted=False)
    expect(page.get_by_text("Incorrect Credentials")).to_be_visible()
    sign_in(page, "alice", PASSWORDS["alice"])
    send(page, "Say hello")
    wait_turn_done(page)
    expect(bot(page, "hello from the agent")).to_be_visible()

    # Her conversation belongs to her name: another browser, signed in as alice, lists it...
    elsewhere = new_page(signed_app.url)
    sign_in(elsewhere, "alice", PASSWORDS["alice"])
    expect(elsewhere.locator(".conversation-list label", has_text="Say hello")).to_have_count(1)
    # ...and bob's browser does not.
    bob = new_page(signed_app.url)
    sign_in(bob, "bob", PASSWORDS["bob"])
    expect(bob.locator(".conversation-list label", has_text="Say hello")).to_have_count(0)
    expect(bob.locator(CHAT).get_by_text("hello from the agent")).to_have_count(0)


def test_admins_read_everyone_s_usage_others_may_not(signed_app):
    from gradio_client import Client

    signed_app.ui.admission.limiter.count_turn(["password:carol"], upload_bytes=2048)
    alice = Client(signed_app.url, auth=("alice", PASSWORDS["alice"]), verbose=False)
    with pytest.raises(Exception, match="Only admins"):
        alice.predict(api_name="/usage")
    bob = Client(signed_app.url, auth=("bob", PASSWORDS["bob"]), verbose=False)
    rows = {row["subject"]: row for row in bob.predict(api_name="/usage")}
    assert rows["password:carol"]["turns_today"] == 1
    assert rows["password:carol"]["upload_bytes_today"] == 2048
