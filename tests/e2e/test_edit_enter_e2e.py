"""The inline edit of a message of the person's, from the keyboard only, as in other chat apps:
Enter sends the edit, Shift+Enter adds a new line, Escape cancels (gradio sent an edit only
from its ✓ button: Enter made a new line)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.keyboard import is_focused, tab_to
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, wait_turn_done
from tests.e2e.test_chat import by_task

pytestmark = pytest.mark.e2e

RULES = {
    "tomatoes": ["<code>\nfinal_answer('Plant tomatoes in May.')\n</code>"],
    "peppers": ["<code>\nfinal_answer('Plant peppers in April.')\n</code>"],
}


def open_the_edit_box(page):
    """Tab back from the message box to the pencil of the person's message and press Enter:
    the edit box opens, focused or one Tab away."""
    page.locator(MESSAGE_BOX).focus()
    mine = page.locator(f"{CHAT} .message-row.user-row")
    tab_to(page, mine.get_by_role("button", name="Edit"), "Shift+Tab")
    page.keyboard.press("Enter")
    editor = page.locator(f"{CHAT} textarea.edit-textarea")
    expect(editor).to_be_visible()
    if not is_focused(page, editor):
        tab_to(page, editor)
    return editor


def test_enter_sends_an_edit_shift_enter_adds_a_line_and_escape_cancels(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(RULES)
    page = open_page(app.url)
    send(page, "When do tomatoes go out?")
    expect(bot(page, "Plant tomatoes in May.")).to_be_visible()
    wait_turn_done(page)

    editor = open_the_edit_box(page)
    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.type("Not sent")
    page.keyboard.press("Escape")  # cancels: the message stays as it was, nothing is sent
    expect(editor).to_have_count(0)
    mine = page.locator(f'{CHAT} [data-testid="user"]')
    expect(mine).to_have_text("When do tomatoes go out?")

    editor = open_the_edit_box(page)
    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.type("When do peppers")
    page.keyboard.press("Shift+Enter")  # a new line, not a send
    expect(editor).to_have_value("When do peppers\n")
    page.keyboard.type("go out?")
    page.keyboard.press("Enter")
    expect(bot(page, "Plant peppers in April.")).to_be_visible()
    expect(editor).to_have_count(0)
    wait_turn_done(page)
    expect(mine).to_contain_text("When do peppers")
    expect(bot(page, "Plant tomatoes in May.")).to_have_count(0)
