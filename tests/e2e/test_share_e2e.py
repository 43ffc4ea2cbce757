"""Sharing a read-only link, as a person does it in Chromium (issue 31): the owner shares the
conversation from the keyboard, copies the link, another visitor opens it and reads the answer
with nothing to type into or run, the page passes axe-core in light and dark, wide and narrow;
Stop sharing, and the link opens nothing at once."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from smolui.auth import hash_password
from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import send, wait_turn_done
from tests.e2e.test_a11y_copy_export_e2e import allow_clipboard, clipboard
from tests.e2e.test_sign_in_e2e import sign_in
from tests.e2e.test_ui_pass import PHONE, WIDE, serious_violations
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

ANSWER = "The shared answer is 42."
SCRIPT = [
    "Thought: work it out.\n<code>\nvalue = 6 * 7\nprint('value', value)\n</code>",
    f"<code>\nfinal_answer('{ANSWER}')\n</code>",
]


@pytest.fixture(scope="module")
def sharing_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    """The real app with sharing open to anyone holding a link."""
    server = ScriptedApp(tmp_path_factory.mktemp("uploads"), sharing="public").start()
    yield server
    server.stop()


def visitor_page(browser, url: str, size: dict[str, int] = WIDE, dark: bool = False):
    """The link opened by someone else: a fresh context, no sign-in, no owner key. axe-core is
    injected by the test, so this context alone lets a script past the page's policy."""
    scheme = "dark" if dark else "light"
    context = browser.new_context(viewport=size, color_scheme=scheme, bypass_csp=True)
    page = context.new_page()
    page.goto(url)
    return page


def test_a_shared_link_shows_the_answer_runs_nothing_and_stops_at_once(
    sharing_app, open_page, browser
):
    sharing_app.script = lambda: list(SCRIPT)
    page = open_page(sharing_app.url)
    allow_clipboard(page, sharing_app.url)
    send(page, "What is six times seven?")
    wait_turn_done(page)

    share = page.get_by_role("button", name="Share a read-only link")
    share.focus()
    page.keyboard.press("Enter")  # from the keyboard, as with Tab to it
    link_box = page.locator(".share-link").get_by_role("textbox")
    expect(link_box).to_have_value(re.compile(re.escape(sharing_app.url) + r"smolui/share/\S+"))
    link = link_box.input_value()
    page.locator(".share-link").get_by_role("button", name=re.compile("copy", re.I)).click()
    wait_for(lambda: clipboard(page) == link, "Copy puts the link on the clipboard")
    stop = page.get_by_role("button", name="Stop sharing")
    expect(stop).to_be_visible()
    assert serious_violations(page) == [], "the owner's page with its share controls"

    try:
        for size, dark in ((WIDE, False), (PHONE, True)):
            shared = visitor_page(browser, link, size, dark)
            expect(shared.get_by_text(ANSWER, exact=True)).to_be_visible()
            expect(shared.locator("details summary").first).to_be_visible()  # the steps
            runnable = shared.locator("textarea, input, button, form, [contenteditable]")
            expect(runnable).to_have_count(0)
            assert shared.locator("script").count() == 0
            assert serious_violations(shared) == [], (size, dark)
            shared.context.close()

        page.reload()  # the owner comes back later: Stop sharing is still there
        expect(page.get_by_role("button", name="Stop sharing")).to_be_visible()
        page.get_by_role("button", name="Stop sharing").click()
        expect(page.get_by_role("button", name="Stop sharing")).to_be_hidden()
        stranger = browser.new_context()
        try:
            answer = stranger.request.get(link)
            assert answer.status == 404, answer.status
        finally:
            stranger.close()
    finally:
        sharing_app.open_gates()


@pytest.fixture(scope="module")
def signed_in_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    """The real app with password sign-in, where only signed-in visitors open links."""
    folder = tmp_path_factory.mktemp("share-signed-in")
    users = folder / "users.txt"
    users.write_text(f"alice:{hash_password('wonderland', rounds=4)}\n"
                     f"bob:{hash_password('builder', rounds=4)}\n")  # fmt: skip
    server = ScriptedApp(
        folder / "uploads", executor="local", auth_mode="password", users=str(users),
        sharing="signed-in",
    )  # fmt: skip
    yield server.start()
    server.stop()


def test_with_signed_in_sharing_a_link_opens_only_after_sign_in(signed_in_app, new_page, browser):
    signed_in_app.script = lambda: [f"<code>\nfinal_answer('{ANSWER}')\n</code>"]
    page = new_page(signed_in_app.url)
    sign_in(page, "alice", "wonderland")
    send(page, "Share this with the team")
    wait_turn_done(page)
    page.get_by_role("button", name="Share a read-only link").click()
    link_box = page.locator(".share-link").get_by_role("textbox")
    expect(link_box).to_have_value(re.compile(r"/smolui/share/\S+"))
    link = link_box.input_value()

    stranger = browser.new_context()
    try:
        assert stranger.request.get(link).status == 401, "not signed in: refused"
    finally:
        stranger.close()
    colleague = new_page(signed_in_app.url)
    sign_in(colleague, "bob", "builder")
    colleague.goto(link)
    expect(colleague.get_by_text(ANSWER, exact=True)).to_be_visible()
    expect(colleague.locator("textarea, input, button")).to_have_count(0)
