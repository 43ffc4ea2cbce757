"""Signed in with a password, the page says who is signed in and offers "Sign out", reachable
with the keyboard; signing out ends the sign-in on the server and brings back the sign-in
page, which a reload keeps. In Chromium, through gradio's real login page."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import expect

from smolui.auth import hash_password
from tests.e2e.harness import ScriptedApp
from tests.e2e.keyboard import tab_to
from tests.e2e.pages import MESSAGE_BOX
from tests.e2e.test_ui_pass import PHONE, WIDE, serious_violations

pytestmark = pytest.mark.e2e
PASSWORD = "wonderland"
SLOW = 120_000  # ms: a cold page after sign-in on a busy 2-core machine


@pytest.fixture(scope="module")
def signed_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    folder = tmp_path_factory.mktemp("sign-out")
    users = folder / "users.txt"
    users.write_text(f"alice:{hash_password(PASSWORD, rounds=4)}\n")
    app = ScriptedApp(folder / "uploads", executor="local", auth_mode="password", users=str(users))
    yield app.start()
    app.stop()


@pytest.fixture
def signed_in_page(browser, signed_app):
    """Opens the app in a fresh browser of the given size and colours and signs in as alice."""
    contexts = []

    def open_(viewport: dict[str, int] = WIDE, dark: bool = False):
        context = browser.new_context(viewport=viewport, color_scheme="dark" if dark else "light")
        context.set_default_timeout(SLOW)
        contexts.append(context)
        page = context.new_page()
        page.goto(signed_app.url + ("?__theme=dark" if dark else ""))
        page.get_by_label("username").fill("alice")
        page.get_by_label("password").fill(PASSWORD)
        page.get_by_role("button", name="Login").click()
        expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=SLOW)
        return page

    yield open_
    for context in contexts:
        context.close()


def sign_out_link(page):
    return page.get_by_role("link", name="Sign out", exact=True)


def test_the_page_names_who_is_signed_in_and_signing_out_ends_it(signed_in_page, signed_app):
    page = signed_in_page()
    expect(page.get_by_text("Signed in as alice")).to_be_visible()
    link = sign_out_link(page)
    expect(link).to_be_visible()
    # "About this server" tells her, in plain words, who can open her conversations.
    panel = page.locator(".prose.side-panel")
    panel.get_by_text("About this server").click()
    expect(panel).to_contain_text("Who can see them: you, signed in")
    cookies = {c["name"]: c["value"] for c in page.context.cookies() if "access-token" in c["name"]}
    assert cookies, "signed in: gradio's cookie"
    assert httpx.get(signed_app.url + "config", cookies=cookies, timeout=60).status_code == 200

    page.locator("body").focus()
    tab_to(page, link)  # keyboard only
    page.keyboard.press("Enter")
    expect(page.get_by_label("username")).to_be_visible(timeout=SLOW)
    expect(page.get_by_text("Signed in as alice")).to_have_count(0)

    page.reload()
    expect(page.get_by_label("password")).to_be_visible(timeout=SLOW)
    expect(page.locator(MESSAGE_BOX)).to_have_count(0)
    # Ended on the server, not only forgotten by this browser: the old cookie opens nothing.
    assert httpx.get(signed_app.url + "config", cookies=cookies, timeout=60).status_code == 401


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["1400x900", "400x800"])
def test_the_signed_in_header_passes_axe(signed_in_page, size, dark):
    page = signed_in_page(size, dark)
    expect(page.get_by_text("Signed in as alice")).to_be_visible()
    expect(sign_out_link(page)).to_be_visible()
    found = serious_violations(page)
    assert not found, "\n".join(found)
