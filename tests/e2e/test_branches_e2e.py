"""A conversation is a tree, in Chromium: edit the first message of a two-turn chat, see the
new answer, go back to the old version with "Previous version", and a reload keeps the
branch shown. Screenshots go to tests/e2e/artifacts/ (git-ignored)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.e2e.test_ui_pass import serious_violations, shot

pytestmark = pytest.mark.e2e

SWITCHER = f"{CHAT} .smolui-versions"


def test_editing_the_first_message_branches_and_the_old_branch_comes_back(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "tomatoes": ["<code>\nfinal_answer('Plant tomatoes in May.')\n</code>"],
            "basil": ["<code>\nfinal_answer('Basil likes warmth.')\n</code>"],
            "peppers": ["<code>\nfinal_answer('Plant peppers in April.')\n</code>"],
        }
    )
    page = open_page(app.url)
    send(page, "When should I plant tomatoes?")
    wait_turn_done(page)
    send(page, "And basil?")
    wait_turn_done(page, 2)
    first = page.locator(f"{CHAT} .message-row.user-row").first
    first.hover()
    first.locator('button[aria-label="Edit"]').click()
    page.locator(f"{CHAT} textarea").fill("When should I plant peppers?")
    page.locator(f'{CHAT} button[aria-label="Submit"]:visible').click()
    expect(bot(page, "Plant peppers in April.")).to_be_visible()
    wait_turn_done(page)
    expect(bot(page, "Basil likes warmth.")).to_have_count(0)
    expect(page.locator(SWITCHER)).to_have_count(1)
    expect(page.locator(SWITCHER)).to_contain_text("2/2")
    shot(page, "branches-new-version")
    assert serious_violations(page) == []
    previous = page.get_by_role("button", name="Previous version")
    previous.focus()  # a keyboard user reaches it and presses Enter
    expect(previous).to_be_focused()
    page.keyboard.press("Enter")
    expect(bot(page, "Plant tomatoes in May.")).to_be_visible()
    expect(bot(page, "Basil likes warmth.")).to_be_visible()
    expect(bot(page, "Plant peppers in April.")).to_have_count(0)
    expect(page.locator(SWITCHER)).to_contain_text("1/2")
    expect(page.get_by_role("button", name="Previous version")).to_be_disabled()
    page.reload()
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(bot(page, "Basil likes warmth.")).to_be_visible()
    expect(page.locator(SWITCHER)).to_contain_text("1/2")
    page.get_by_role("button", name="Next version").click()
    expect(bot(page, "Plant peppers in April.")).to_be_visible()
    expect(bot(page, "Basil likes warmth.")).to_have_count(0)
    # The next turn remembers the branch shown: a new message there is answered.
    send(page, "And basil?")
    expect(bot(page, "Basil likes warmth.")).to_be_visible()
    wait_turn_done(page, 2)
