"""The share controls from the keyboard, with what a screen reader hears, in Chromium (issue 31,
from a browser check): Copy on the link says "Link copied" (it showed only a check mark);
Enter on "Stop sharing" puts the focus on "Share a read-only link" (it fell to the page's
body when the button went) and says that sharing stopped, and Enter there shares again.
Wide and dark, and on a phone with the sidebar opened, light."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import send, wait_turn_done
from tests.e2e.test_a11y_copy_export_e2e import allow_clipboard, clipboard
from tests.e2e.test_phone_sidebar_e2e import open_the_sidebar
from tests.e2e.test_share_e2e import SCRIPT, sharing_app
from tests.e2e.test_ui_pass import PHONE, WIDE, serious_violations
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

__all__ = ["sharing_app"]  # the fixture, used by name

SAID = "#smolui-announce"  # the page's polite status region


def shared(page, url: str):
    """Enter on "Share a read-only link": the link box, its value the whole address."""
    share = page.get_by_role("button", name="Share a read-only link")
    share.focus()
    page.keyboard.press("Enter")
    link_box = page.locator(".share-link").get_by_role("textbox")
    expect(link_box).to_have_value(re.compile(re.escape(url) + r"smolui/share/\S+"))
    return link_box.input_value()


@pytest.mark.parametrize(
    "size, dark", [(WIDE, True), (PHONE, False)], ids=["wide-dark", "phone-light"]
)
def test_copy_and_stop_sharing_say_what_happened_and_keep_the_focus(
    sharing_app, open_page, size, dark
):
    sharing_app.script = lambda: list(SCRIPT)
    page = open_page(sharing_app.url, viewport=size, dark=dark)
    allow_clipboard(page, sharing_app.url)
    send(page, "What is six times seven?")
    wait_turn_done(page)
    if size == PHONE:
        open_the_sidebar(page)
    link = shared(page, sharing_app.url)

    copy = page.locator(".share-link").get_by_role("button", name="Copy")
    copy.focus()
    page.keyboard.press("Enter")
    expect(page.locator(SAID)).to_have_text("Link copied")
    wait_for(lambda: clipboard(page) == link, "Copy puts the link on the clipboard")
    expect(copy).to_be_focused()

    stop = page.get_by_role("button", name="Stop sharing")
    stop.focus()
    page.keyboard.press("Enter")
    expect(stop).to_be_hidden()
    share = page.get_by_role("button", name="Share a read-only link")
    expect(share).to_be_focused()
    expect(page.locator(SAID)).to_have_text("Sharing stopped: the link no longer opens.")

    # The keyboard user goes on from there: Enter shares again, with a new link.
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Stop sharing")).to_be_visible()
    again = page.locator(".share-link").get_by_role("textbox")
    expect(again).not_to_have_value(link)
    expect(again).to_have_value(re.compile(r"smolui/share/\S+"))
    # gradio's toast nests its buttons (axe: nested-interactive): read, then gone by itself.
    expect(page.locator('[data-testid="toast-text"]')).to_have_count(0)
    found = serious_violations(page)
    assert not found, "\n".join(found)
