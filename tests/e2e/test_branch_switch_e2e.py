"""Switching back to the first version of an edited first message: the sidebar's title
follows the branch shown, and a Retry of that branch's last answer comes without the
"reopened from storage" notice (a switch reopens nothing; the agent is rebuilt from the
branch's stored steps, which hold code, as a reopened one would be)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, chat_icon, send, wait_turn_done
from tests.e2e.test_chat import by_task

LISTED = ".conversation-list label"
USER_ROWS = f"{CHAT} .message-row.user-row"


def icon(page, label: str):
    return page.locator(f'{CHAT} button[aria-label="{label}"]:visible')


def test_the_title_follows_the_version_shown_and_a_retry_is_no_reopen(app, open_page):
    app.model_options = {"loop": True}
    replies = by_task(  # one set of counters: the agent let go by a switch is made again
        {
            "apples": ["<code>\nfinal_answer('About apples.')\n</code>"],
            "plums": [
                "<code>\nfinal_answer('About plums.')\n</code>",
                "<code>\nfinal_answer('Plums again.')\n</code>",
            ],
            "pears": ["<code>\nfinal_answer('About pears.')\n</code>"],
        }
    )
    app.script = lambda: replies
    page = open_page(app.url)
    send(page, "Tell me about apples.")
    wait_turn_done(page)
    send(page, "Tell me about plums.")
    wait_turn_done(page, 2)
    expect(page.locator(LISTED, has_text="Tell me about apples.")).to_have_count(1)
    first = page.locator(USER_ROWS).first
    first.hover()
    first.locator('button[aria-label="Edit"]').click()
    page.locator(f"{CHAT} textarea").fill("Tell me about pears.")
    icon(page, "Submit").click()
    expect(bot(page, "About pears.")).to_be_visible()
    wait_turn_done(page)
    expect(page.locator(LISTED, has_text="Tell me about pears.")).to_have_count(1)

    page.get_by_role("button", name="Previous version").click()
    expect(bot(page, "About plums.")).to_be_visible()
    expect(page.locator(LISTED, has_text="Tell me about apples.")).to_have_count(1)
    expect(page.locator(LISTED, has_text="Tell me about pears.")).to_have_count(0)

    chat_icon(page, "Retry").click()
    expect(bot(page, "Plums again.")).to_be_visible()
    wait_turn_done(page, 2)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(page.locator(CHAT)).not_to_contain_text("reopened from storage")
