"""A visitor throttled at sign-in reads why on gradio's real login page, in Chromium, instead
of a button that does nothing."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from smolui.auth import hash_password
from smolui.auth.login_page import NOTICE_ID
from tests.e2e.harness import ScriptedApp

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def signed_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    folder = tmp_path_factory.mktemp("login-refusal")
    users = folder / "users.txt"
    users.write_text(f"alice:{hash_password('wonderland', rounds=4)}\n")
    app = ScriptedApp(folder / "uploads", executor="local", auth_mode="password", users=str(users))
    yield app.start()
    app.stop()


def test_a_throttled_sign_in_shows_why_on_the_page(signed_app, new_page):
    page = new_page(signed_app.url)
    form = {"username": "alice", "password": "wrong"}
    statuses = [httpx.post(signed_app.url + "login", data=form, timeout=60).status_code]
    while statuses[-1] != 429:  # the same address as the browser: it uses up the allowance
        statuses.append(httpx.post(signed_app.url + "login", data=form, timeout=60).status_code)
        assert len(statuses) <= 100, f"never throttled: {statuses}"
    page.get_by_label("username").fill("alice")
    page.get_by_label("password").fill("wonderland")
    page.get_by_role("button", name="Login").click()
    notice = page.locator(f"#{NOTICE_ID}")
    expect(notice).to_be_visible(timeout=60_000)
    expect(notice).to_contain_text("Too many sign-in attempts")
    expect(notice).to_contain_text("Try again in")
