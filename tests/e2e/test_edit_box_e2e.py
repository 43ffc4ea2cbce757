"""The pencil on an earlier message opens a box as wide as the message, showing the whole
text, as a person sees it in Chromium (gradio sized it to 160 px in the panel layout: a long
question showed three words a line, its first line scrolled out of sight)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, send, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.e2e.test_ui_pass import PHONE, WIDE

pytestmark = pytest.mark.e2e

QUESTION = "What is the 20th Fibonacci number? Compute it with code and explain each step."


@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["wide", "phone"])
def test_the_edit_box_is_as_wide_as_the_message_and_shows_all_of_it(app, open_page, size):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"Fibonacci": ["<code>\nfinal_answer('6765')\n</code>"]})
    page = open_page(app.url, viewport=size)
    send(page, QUESTION)
    wait_turn_done(page)
    row = page.locator(f"{CHAT} .message-row.user-row").first
    row.hover()
    row.locator('button[aria-label="Edit"]').click()
    box = page.locator(f"{CHAT} textarea")
    expect(box).to_have_value(QUESTION)
    width = box.evaluate("box => box.getBoundingClientRect().width")
    room = row.evaluate("row => row.getBoundingClientRect().width")
    assert width >= 0.6 * room, f"the edit box is {width:.0f} px wide in a {room:.0f} px row"
    hidden = box.evaluate("box => box.scrollHeight - box.clientHeight")
    assert hidden <= 1, f"{hidden} px of the message are scrolled out of the edit box"


@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["wide", "phone"])
def test_editing_the_only_message_keeps_the_examples_away_and_the_chat_in_place(
    app, open_page, size
):
    # The page hides the examples once the chat holds a message of the person's; the edit
    # box takes that message's place, and the examples came back while it was open.
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"Fibonacci": ["<code>\nfinal_answer('6765')\n</code>"]})
    page = open_page(app.url, viewport=size)
    send(page, QUESTION)
    wait_turn_done(page)
    expect(page.locator("#examples")).to_be_hidden()
    chat = page.locator(CHAT).bounding_box()
    row = page.locator(f"{CHAT} .message-row.user-row").first
    row.hover()
    row.locator('button[aria-label="Edit"]').click()
    expect(page.locator(f"{CHAT} textarea")).to_have_value(QUESTION)
    expect(page.locator("#examples")).to_be_hidden()
    assert page.locator(CHAT).bounding_box() == chat, "the chat moved when the edit box opened"
