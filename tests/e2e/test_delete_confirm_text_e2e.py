"""Delete and "Delete all my conversations" ask first, in plain words, as a person reads them in
Chromium: Delete names the conversation by its title and says its date once (it quoted the
list's whole label, "<title> · <date>", as though it were the title); Delete all says how many
(it did not), and that a search does not narrow what it deletes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import send, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

TITLE = "Sales · March totals"  # a title may hold the list's separator itself
DATE = re.compile(r"[A-Z][a-z]{2} \d{2}, \d{2}:\d{2}")  # the list's date: "Nov 27, 09:14"


def test_delete_names_the_conversation_and_its_date_once(app, open_page):
    app.model_options = {"loop": True}
    noted = ["<code>\nfinal_answer('Noted.')\n</code>"]
    app.script = lambda: by_task({"March": noted, "April": noted})
    page = open_page(app.url)
    send(page, "April totals")
    wait_turn_done(page)
    page.get_by_role("button", name="+ New chat").click()
    send(page, TITLE)
    wait_turn_done(page)
    expect(page.locator(".conversation-list label")).to_have_count(2)
    entry = page.locator(".conversation-list label", has_text=TITLE)
    expect(entry).to_have_count(1)
    # The list is drawn again as the turn ends: read the label once it says its date.
    dates = wait_for(lambda: DATE.findall(entry.inner_text()), "the entry says its date")
    assert len(dates) == 1, entry.inner_text()
    asked: list[str] = []

    def refuse(dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", refuse)
    page.locator(".conversation-manage").get_by_text("Manage conversation").click()
    page.locator(".conversation-manage .delete-button").click()
    wait_for(lambda: len(asked) == 1, "Delete asks first")
    assert asked[0] == f"Delete \u201c{TITLE}\u201d ({dates[0]})? This cannot be undone."
    page.locator(".delete-all-button").click()
    wait_for(lambda: len(asked) == 2, "Delete all asks first")
    assert asked[1] == "Delete all 2 of your conversations? This cannot be undone."
    search = page.get_by_role("textbox", name="Search conversations")
    search.fill("March")
    expect(page.locator(".conversation-list label")).to_have_count(1)
    page.locator(".delete-all-button").click()
    wait_for(lambda: len(asked) == 3, "Delete all asks first, while a search narrows the list")
    assert asked[2] == (
        "Delete all your conversations, not only the 1 this search found? This cannot be undone."
    )
    expect(entry).to_have_count(1)  # all refused: nothing was deleted
    search.fill("")
    expect(page.locator(".conversation-list label")).to_have_count(2)
