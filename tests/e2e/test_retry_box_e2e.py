"""A retried turn holds the page as a sent message does: the message box is disabled and Stop
enabled while it runs, both back once it ends, whichever Retry the person pressed (the chat's
icon under the last answer, or the Retry button below the box)."""

from __future__ import annotations

import threading

import pytest
from playwright.sync_api import expect

from agents.models.scripted import ScriptedReply
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.waiting import GENEROUS_S

pytestmark = pytest.mark.e2e

USER = f'{CHAT} [data-testid="user"]'

RETRIES = {
    "the chat's icon": f'{CHAT} button[aria-label="Retry"]:visible',
    "the Retry button": ".retry-button",
}


@pytest.mark.parametrize("retry", list(RETRIES), ids=["chat-icon", "retry-button"])
def test_a_retried_turn_disables_the_box_until_it_ends(app, open_page, retry):
    # The retried model call answers only once the page was seen holding the box.
    retried_reached, retried_gate = threading.Event(), threading.Event()
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "plums": [
                "<code>\nfinal_answer('First go at plums.')\n</code>",
                ScriptedReply(
                    "<code>\nfinal_answer('Second go at plums.')\n</code>",
                    reached=retried_reached,
                    gate=retried_gate,
                ),
            ]
        }
    )
    try:
        page = open_page(app.url)
        send(page, "Tell me about plums.")
        expect(bot(page, "First go at plums.")).to_be_visible()
        wait_turn_done(page)
        box, stop = page.locator(MESSAGE_BOX), page.locator(".stop-button")
        retrying = page.locator(RETRIES[retry])
        expect(retrying).to_have_count(1)  # the chat's icons: one shown once the turn ended
        retrying.click()
        assert retried_reached.wait(GENEROUS_S), "the retried turn called the model"
        expect(box).to_be_disabled()  # nothing else can be sent while the retry runs
        expect(stop).to_be_enabled()
        retried_gate.set()
        expect(bot(page, "Second go at plums.")).to_be_visible()
        wait_turn_done(page)
        expect(stop).to_be_disabled()
        expect(page.locator(USER)).to_have_count(1)
    finally:  # never leave the app's agent held for the next test
        retried_gate.set()
