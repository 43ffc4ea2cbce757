"""Undo on the last turn puts the undone message back into the message box, where the
person changes it and sends it again (as gradio's own undo does)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, chat_icon, send, wait_turn_done
from tests.e2e.test_chat import by_task

USER_ROWS = f"{CHAT} .message-row.user-row"


def test_undo_gives_the_message_back_to_the_box(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "apples": ["<code>\nfinal_answer('About apples.')\n</code>"],
            "pears": ["<code>\nfinal_answer('About pears.')\n</code>"],
            "plums": ["<code>\nfinal_answer('About plums.')\n</code>"],
        }
    )
    page = open_page(app.url)
    send(page, "Tell me about apples.")
    wait_turn_done(page)
    send(page, "Tell me about pears.")
    wait_turn_done(page, 2)
    chat_icon(page, "Undo").click()
    expect(bot(page, "About pears.")).to_have_count(0)
    box = page.locator(MESSAGE_BOX)
    expect(box).to_have_value("Tell me about pears.")
    expect(box).to_be_enabled()
    box.fill("Tell me about plums.")  # changed, then sent again
    box.press("Enter")
    expect(bot(page, "About plums.")).to_be_visible()
    wait_turn_done(page, 2)
    expect(page.locator(USER_ROWS)).to_have_count(2)
    expect(box).to_have_value("")
