"""Delete and "Delete all my conversations" ask first, in plain words, as a person reads them in
Chromium: Delete names the conversation by its title and says its date once (it quoted the
list's whole label, "<title> · <date>", as though it were the title)."""

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
    app.script = lambda: by_task({"March": ["<code>\nfinal_answer('Noted.')\n</code>"]})
    page = open_page(app.url)
    send(page, TITLE)
    wait_turn_done(page)
    entry = page.locator(".conversation-list label", has_text=TITLE)
    expect(entry).to_have_count(1)
    dates = DATE.findall(entry.inner_text())
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
    assert asked[1] == "Delete all your conversations? This cannot be undone."
    expect(entry).to_have_count(1)  # both refused: nothing was deleted
