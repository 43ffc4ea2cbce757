"""A long conversation's "Earlier messages (N)" counts what a person sees as messages, in
Chromium (issue 31): their messages and the answers, not the thoughts, code and logs of
each step; and a click brings back that many, however many steps the answers took."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import CHAT, bot, send, step_title, wait_turn_done
from tests.e2e.test_chat import by_task

pytestmark = pytest.mark.e2e

WORDS = ("alpha", "bravo", "charlie")


@pytest.fixture(scope="module")
def small_window_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    """The real app whose page holds the last turn (a window of 4 messages)."""
    server = ScriptedApp(tmp_path_factory.mktemp("uploads"), chat_window=4)
    server.model_options = {"loop": True}
    rules = {
        word: [
            "Thought: look it up first.\n<code>\nprint('notes on the word')\n</code>",
            f"<code>\nfinal_answer('{word.title()} answered.')\n</code>",
        ]
        for word in WORDS
    }
    server.script = lambda: by_task(rules)
    yield server.start()
    server.stop()


def test_earlier_messages_counts_questions_and_answers(small_window_app, open_page):
    page = open_page(small_window_app.url)
    for word in WORDS:
        send(page, f"Tell me about {word}.")
        expect(bot(page, f"{word.title()} answered.")).to_be_visible()
        wait_turn_done(page)
    expect(step_title(page, "Step 2")).to_have_count(1)  # each turn took two steps
    earlier = page.get_by_role("button", name=re.compile("Earlier messages"))
    # Two turns wait on the server: two questions and two answers.
    expect(earlier).to_have_text("↑ Earlier messages (4)")
    page.reload()
    expect(earlier).to_have_text("↑ Earlier messages (4)", timeout=120_000)
    # A click brings back 4 messages as counted (the window's size), whatever their steps
    # hold: here both turns, and nothing is left to bring.
    earlier.click()
    expect(bot(page, "Alpha answered.")).to_be_visible()
    expect(bot(page, "Bravo answered.")).to_be_visible()
    expect(earlier).to_be_hidden()
    expect(page.locator(f"{CHAT} .message-row.user-row")).to_have_count(3)
