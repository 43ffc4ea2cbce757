"""What an independent browser check found with `--approve code`, done as a person does it in
Chromium: a turn left waiting for approval (its browser closed) locks nobody at the address
out; the "Ask me" box is ticked from the first paint; the waiting step says it waits and shows
its thought and code once, in the card, without raw markers; and a message sent from the box
puts the focus on the card's Run, one key away."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, step_title
from tests.e2e.test_approvals_e2e import EDITOR, PANEL, SWITCH

pytestmark = pytest.mark.e2e

THOUGHT = "Thought: I multiply the two numbers."
PROPOSED = f"{THOUGHT}\n<code>\nresult = 6 * 7\nfinal_answer(f'The answer is {{result}}.')\n</code>"
CODE = "result = 6 * 7\nfinal_answer(f'The answer is {result}.')"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    # As the check ran it: every code block asks, one turn at a time per person (default).
    server = ScriptedApp(tmp_path_factory.mktemp("uploads"), executor="local", approve="code")
    server.start()
    yield server
    server.stop()


def waiting(page) -> None:
    send(page, "What is six times seven?")
    expect(page.locator(PANEL)).to_be_visible()
    expect(page.locator(EDITOR)).to_have_value(CODE)


def test_a_turn_abandoned_while_it_waits_for_approval_locks_nobody_out(app, browser):
    app.script = lambda: [PROPOSED]
    first = browser.new_context()
    first.set_default_timeout(60_000)
    page = first.new_page()
    page.goto(app.url)
    waiting(page)
    first.close()  # the browser goes away; the turn still waits (no timeout by default)

    other = browser.new_context()  # another browser at the same address, no sign-in
    other.set_default_timeout(60_000)
    try:
        page = other.new_page()
        page.goto(app.url)
        app.script = lambda: ["<code>\nfinal_answer('Seventy-two.')\n</code>"]
        send(page, "And eight times nine?")
        expect(page.locator(PANEL)).to_be_visible()  # its own action asks, as it should
        expect(bot(page, "Limit reached")).to_have_count(0)
        page.get_by_role("button", name="Run", exact=True).click()
        expect(bot(page, "Seventy-two.")).to_be_visible()
    finally:
        other.close()


def test_the_ask_me_box_is_ticked_from_the_first_paint(app, browser):
    context = browser.new_context()
    context.set_default_timeout(60_000)
    try:
        page = context.new_page()
        page.goto(app.url, wait_until="commit")
        switch = page.get_by_label(SWITCH)
        switch.wait_for()
        # Read at once, not retried: the box as first drawn, before any event of the page.
        assert switch.is_checked(), "the box showed unticked while --approve code asks"
        expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=120_000)
        expect(switch).to_be_checked()
        page.get_by_role("button", name="+ New chat").click()
        expect(switch).to_be_checked()
    finally:
        context.close()


def test_the_waiting_step_says_it_waits_and_shows_its_code_once(app, open_page):
    app.script = lambda: [PROPOSED]
    page = open_page(app.url)
    waiting(page)
    title = step_title(page, "Step 1")
    expect(title).to_contain_text("waits for your approval")
    expect(title).not_to_contain_text("thinking")
    chat = page.locator(CHAT)
    expect(chat.get_by_text("I multiply the two numbers.")).to_have_count(1)
    expect(chat).not_to_contain_text("Thought:")
    expect(chat.get_by_text("result = 6 * 7")).to_have_count(1)  # in the card alone
    page.get_by_role("button", name="Run", exact=True).click()
    expect(bot(page, "The answer is 42.")).to_be_visible()


def test_a_message_sent_from_the_box_puts_the_focus_on_the_cards_run(app, open_page):
    app.script = lambda: [PROPOSED]
    page = open_page(app.url)
    waiting(page)  # typed in the box, sent with Enter
    run = page.get_by_role("button", name="Run", exact=True)
    expect(run).to_be_focused()
    page.keyboard.press("Enter")
    expect(bot(page, "The answer is 42.")).to_be_visible()
    expect(page.locator(MESSAGE_BOX)).to_be_focused()  # and back in the box after the turn
