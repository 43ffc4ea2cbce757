"""The conversation's title after Undo of its first message (issue 31's browser check): the
person undoes the first message and sends another; the list names the conversation after the
new first message, and still does after a reload."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import MESSAGE_BOX, bot, chat_icon, send, wait_turn_done
from tests.e2e.test_chat import by_task

TITLES = ".conversation-list label"


def test_the_title_follows_a_new_first_message_after_undo(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "apples": ["<code>\nfinal_answer('About apples.')\n</code>"],
            "pears": ["<code>\nfinal_answer('About pears.')\n</code>"],
        }
    )
    page = open_page(app.url)
    send(page, "Tell me about apples.")
    wait_turn_done(page)
    expect(page.locator(TITLES, has_text="Tell me about apples.")).to_have_count(1)
    chat_icon(page, "Undo").click()
    expect(bot(page, "About apples.")).to_have_count(0)
    box = page.locator(MESSAGE_BOX)
    expect(box).to_have_value("Tell me about apples.")
    box.fill("Tell me about pears.")
    box.press("Enter")
    expect(bot(page, "About pears.")).to_be_visible()
    wait_turn_done(page)
    for when in ("after the answer", "after a reload"):
        expect(page.locator(TITLES, has_text="Tell me about pears."), when).to_have_count(1)
        expect(page.locator(TITLES, has_text="apples"), when).to_have_count(0)
        if when == "after the answer":
            page.reload()
