"""A huge paste as a message folds to its first lines, in Chromium (issue 31): "Show all
(N lines)" unfolds it from the keyboard and "Show less" folds it again; copy and edit get
the whole text, and a reload folds it again from the stored, unchanged text."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.keyboard import tab_to, to_the_box
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, wait_turn_done
from tests.e2e.test_a11y_copy_export_e2e import allow_clipboard, clipboard
from tests.e2e.test_chat import by_task
from tests.e2e.test_ui_pass import serious_violations, shot

pytestmark = pytest.mark.e2e

LOG = "\n".join(f"12:00:{n % 60:02d} worker {n}: request served" for n in range(300))
ONE_LINE = "word " * 4000  # 20,000 characters without a line break
MINE = f'{CHAT} .message-row.user-row [data-testid="user"]'


def height(locator) -> float:
    return locator.evaluate("node => node.getBoundingClientRect().height")


def test_a_long_paste_folds_and_unfolds_from_the_keyboard(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "worker": ["<code>\nfinal_answer('The log looks healthy.')\n</code>"],
            "word": ["<code>\nfinal_answer('That is a lot of words.')\n</code>"],
        }
    )
    page = open_page(app.url)
    allow_clipboard(page, app.url)
    send(page, LOG)
    expect(bot(page, "The log looks healthy.")).to_be_visible()
    wait_turn_done(page)
    message = page.locator(MINE).first
    show_all = page.get_by_role("button", name="Show all (300 lines)")
    expect(show_all).to_be_visible()
    expect(show_all).to_have_attribute("aria-expanded", "false")
    folded = height(message)
    assert folded < 300, f"the folded message is {folded}px high"
    expect(bot(page, "The log looks healthy.")).to_be_in_viewport()
    shot(page, "long-message-folded")
    assert serious_violations(page) == []

    to_the_box(page)
    tab_to(page, show_all, "Shift+Tab")
    page.keyboard.press("Enter")
    less = page.get_by_role("button", name="Show less")
    expect(less).to_have_attribute("aria-expanded", "true")
    expect(less).to_be_focused()
    assert height(message) > folded * 4, "the whole message shows"
    page.keyboard.press("Space")
    expect(show_all).to_be_visible()
    assert height(message) == pytest.approx(folded, abs=2)

    # Copy takes the whole message, as it was sent.
    row = page.locator(f"{CHAT} .message-row.user-row").first
    row.hover()
    row.get_by_role("button", name="Copy message").click()
    assert clipboard(page).strip() == LOG

    send(page, ONE_LINE.strip())
    expect(bot(page, "That is a lot of words.")).to_be_visible()
    wait_turn_done(page, 2)
    expect(page.get_by_role("button", name="Show all (19,999 characters)")).to_be_visible()

    page.reload()  # the stored text is whole: it folds again, and Edit gets all of it
    expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=120_000)
    expect(page.get_by_role("button", name="Show all (300 lines)")).to_be_visible()
    row.hover()
    row.get_by_role("button", name="Edit").click()
    expect(page.locator(f"{CHAT} textarea")).to_have_value(LOG)
