"""A conversation of two questions whose turns take three steps each (more messages than the
page's default window of 20) reopens with both questions, after a reload and from the
sidebar: the window keeps the last turns whole, never only the last answer's steps."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, wait_turn_done
from tests.e2e.test_chat import by_task

USER_ROWS = f"{CHAT} .message-row.user-row"


def three_steps(word: str) -> list[str]:
    """Two steps that print, then the answer: a turn of about eleven messages."""
    return [
        f"Thought: look at {word}.\n<code>\nprint('{word} one')\n</code>",
        f"Thought: look again.\n<code>\nprint('{word} two')\n</code>",
        f"Thought: answer.\n<code>\nfinal_answer('{word.title()} answered.')\n</code>",
    ]


def both_questions_shown(page) -> None:
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(bot(page, "Second answered.")).to_be_visible()
    expect(page.locator(USER_ROWS)).to_have_count(2)
    expect(page.locator(USER_ROWS).first).to_contain_text("first question")
    expect(page.get_by_role("button", name=re.compile("Earlier messages"))).to_be_hidden()


def test_a_two_question_chat_reopens_with_its_first_question(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"first": three_steps("first"), "second": three_steps("second")})
    page = open_page(app.url)
    send(page, "Tell me the first question.")
    wait_turn_done(page)
    send(page, "Tell me the second question.")
    wait_turn_done(page, 2)
    page.reload()
    both_questions_shown(page)
    page.locator(".new-chat-button").click()
    expect(page.locator(USER_ROWS)).to_have_count(0)
    page.locator(".conversation-list label", has_text="first question").click()
    both_questions_shown(page)
