"""The turn queue in Chromium: with every slot busy, a visitor sees their place, leaves with Stop."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import MESSAGE_BOX, bot, send

pytestmark = pytest.mark.e2e
SLOW = 30_000  # ms


@pytest.fixture(scope="module")
def one_slot_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    app = ScriptedApp(tmp_path_factory.mktemp("queue") / "uploads", executor="local")
    # One slot for everyone. Both pages come from this machine's address, and anonymous
    # visitors are limited per address: two turns at once for it, so the second one waits.
    app.settings = app.settings.with_changes(concurrency=1, user_concurrency=2)
    app.script = lambda: ["Counting slowly.\n<code>\nfinal_answer('all done')\n</code>"]
    app.model_options = {"loop": True, "delay": 12.0}  # the model thinks 12 s per reply
    yield app.start()
    app.stop()


def test_a_waiting_visitor_sees_the_queue_and_stop_leaves_it(one_slot_app, new_page):
    first = new_page(one_slot_app.url)
    expect(first.locator(MESSAGE_BOX)).to_be_enabled(timeout=SLOW)
    send(first, "take the only slot")
    second = new_page(one_slot_app.url)
    expect(second.locator(MESSAGE_BOX)).to_be_enabled(timeout=SLOW)
    send(second, "let me in")
    expect(bot(second, "number 1 of 1 in the queue")).to_be_visible(timeout=SLOW)
    second.locator(".stop-button").click()
    expect(bot(second, "left the queue")).to_be_visible(timeout=SLOW)
    expect(second.locator(MESSAGE_BOX)).to_be_enabled(timeout=SLOW)
    expect(bot(first, "all done")).to_be_visible(timeout=SLOW)
