"""A Retry or an edit refused before it runs (here the per-user daily turn limit) makes no
version, in Chromium: the answer shown stays, no "< 2/2 >" switcher appears, the refusal is
a toast, and a reload shows the same chat (issue 31)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, chat_icon, send, wait_turn_done
from tests.e2e.test_chat import by_task

pytestmark = pytest.mark.e2e

TOAST = '[data-testid="toast-text"]'
SWITCHER = f"{CHAT} .smolui-versions"
TOMATOES, BASIL = "Plant tomatoes in May.", "Basil likes warmth."
RULES = {
    "tomatoes": ["<code>\nfinal_answer('Plant tomatoes in May.')\n</code>"],
    "basil": ["<code>\nfinal_answer('Basil likes warmth.')\n</code>"],
    "peppers": ["<code>\nfinal_answer('Plant peppers in April.')\n</code>"],
}


@pytest.fixture
def limited_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    """The real app where each visitor may start two turns a day (one app per test: the
    page's visitors share an address, which the limit counts)."""
    server = ScriptedApp(tmp_path_factory.mktemp("uploads"), turns_per_day=2)
    server.model_options = {"loop": True}
    server.script = lambda: by_task(RULES)
    yield server.start()
    server.stop()


def two_answers_then_out_of_turns(page) -> None:
    send(page, "When should I plant tomatoes?")
    wait_turn_done(page)
    send(page, "And basil?")
    wait_turn_done(page, 2)


def the_chat_is_as_it_was(page) -> None:
    expect(bot(page, TOMATOES)).to_be_visible()
    expect(bot(page, BASIL)).to_be_visible()
    expect(bot(page, "turns")).to_have_count(0)  # the refusal is not a chat message
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(page.locator(SWITCHER)).to_have_count(0)


def test_a_refused_retry_keeps_the_answer_and_says_why(limited_app, open_page):
    page = open_page(limited_app.url)
    two_answers_then_out_of_turns(page)
    chat_icon(page, "Retry").click()
    expect(page.locator(TOAST, has_text="turns")).to_be_visible()
    the_chat_is_as_it_was(page)
    page.reload()
    expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=120_000)
    the_chat_is_as_it_was(page)


def test_a_refused_edit_of_an_earlier_message_keeps_the_branch(limited_app, open_page):
    page = open_page(limited_app.url)
    two_answers_then_out_of_turns(page)
    first = page.locator(f"{CHAT} .message-row.user-row").first
    first.hover()
    first.locator('button[aria-label="Edit"]').click()
    page.locator(f"{CHAT} textarea").fill("When should I plant peppers?")
    page.locator(f'{CHAT} button[aria-label="Submit"]:visible').click()
    expect(page.locator(TOAST, has_text="turns")).to_be_visible()
    expect(page.locator(CHAT).get_by_text("When should I plant tomatoes?")).to_be_visible()
    expect(page.locator(CHAT).get_by_text("When should I plant peppers?")).to_have_count(0)
    the_chat_is_as_it_was(page)
    page.reload()
    expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=120_000)
    the_chat_is_as_it_was(page)
