"""An empty send changes nothing (a browser check found it wiping the open conversation):
Enter in an empty or blank box, or the Send button, keeps the chat shown, and the next
message continues the conversation, also after a reload."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, wait_turn_done
from tests.e2e.test_chat import by_task

pytestmark = pytest.mark.e2e

SEND = "#message button.submit-button"
FIRST, SECOND = "Remember the word banana.", "And now the word cherry."


def user(page, text: str):
    return page.locator(f"{CHAT} .message-row.user-row").filter(has_text=text)


def blank_messages(request) -> bool:
    """Whether a request to a gradio event carries a message box value with no text or file."""
    if "/gradio_api/" not in request.url or not request.post_data:
        return False
    values = json.loads(request.post_data).get("data", [])
    return any(
        isinstance(value, dict)
        and "text" in value
        and not str(value["text"]).strip()
        and not value.get("files")
        for value in values
    )


def test_an_empty_send_keeps_the_conversation(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({
        "banana": ["<code>\nfinal_answer('Banana noted.')\n</code>"],
        "cherry": ["<code>\nfinal_answer('Cherry noted.')\n</code>"],
    })  # fmt: skip
    page = open_page(app.url)
    send(page, FIRST)
    expect(bot(page, "Banana noted.")).to_be_visible()
    wait_turn_done(page)
    box = page.locator(MESSAGE_BOX)
    # An empty send asks the server nothing: while gradio waited for that answer it
    # dropped the next message sent.
    asked: list = []
    page.on("request", lambda r: asked.append(r.url) if blank_messages(r) else None)
    box.press("Enter")  # empty
    box.fill("   ")
    box.press("Enter")  # blank
    box.fill("")
    page.locator(SEND).click()
    # Nothing was sent: the next message continues the same conversation.
    send(page, SECOND)
    expect(bot(page, "Cherry noted.")).to_be_visible()
    wait_turn_done(page, turns=2)
    assert asked == [], "an empty send went to the server"
    expect(user(page, FIRST)).to_be_visible()
    expect(bot(page, "Banana noted.")).to_be_visible()
    page.reload()
    expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=120_000)
    for said in (user(page, FIRST), bot(page, "Banana noted."), user(page, SECOND)):
        expect(said).to_be_visible()
