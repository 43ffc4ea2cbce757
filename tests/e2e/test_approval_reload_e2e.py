"""A page reloaded while an action waits for approval shows what the live page showed, in
Chromium with `--approve code`: the waiting step once (its title says it waits), its thought
and code once, in the card, the card's Run and the other answers, and the focus on Run; the
same after the app was killed (-9) and started again, where the page is built from the store
and the answer resumes the turn, which shows the step once."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, reload_after_restart, send, step_title
from tests.e2e.test_approval_found_e2e import CODE, PROPOSED
from tests.e2e.test_approvals_e2e import EDITOR, PANEL, approval_on, pending_code
from tests.e2e.test_approvals_restart_e2e import HELD, processes
from tests.e2e.test_durable import SLOW, AppProcess

__all__ = ["processes"]  # the fixture, used by name

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    server = ScriptedApp(tmp_path_factory.mktemp("uploads"), executor="local", approve="code")
    server.start()
    yield server
    server.stop()


def shows_the_wait_once(page) -> None:
    """The waiting step once, its thought and code once (in the card), and the card."""
    expect(page.locator(PANEL)).to_be_visible()
    expect(page.locator(EDITOR)).to_have_value(CODE)
    chat = page.locator(CHAT)
    expect(step_title(page, "Step 1")).to_have_count(1)
    expect(step_title(page, "Step 1")).to_contain_text("waits for your approval")
    expect(chat.get_by_text("I multiply the two numbers.")).to_have_count(1)
    expect(chat.get_by_text("result = 6 * 7")).to_have_count(1)
    expect(chat).not_to_contain_text("Thought:")
    expect(chat.get_by_text("Waiting for your approval", exact=True)).to_have_count(1)


def test_a_reloaded_page_shows_the_waiting_step_once_with_its_card(app, open_page):
    app.script = lambda: [PROPOSED]
    page = open_page(app.url)
    send(page, "What is six times seven?")
    shows_the_wait_once(page)
    page.reload()
    shows_the_wait_once(page)
    run = page.get_by_role("button", name="Run", exact=True)
    expect(run).to_be_focused()
    page.keyboard.press("Enter")
    expect(bot(page, "The answer is 42.")).to_be_visible()
    expect(page.locator(PANEL)).to_be_hidden()
    expect(page.locator(MESSAGE_BOX)).to_be_focused()  # and back in the box, as live


def test_after_kill_9_and_a_restart_a_reload_shows_the_waiting_step_once_with_its_card(
    tmp_path, processes, new_page
):
    data, calls = tmp_path / "data", tmp_path / "calls.jsonl"
    first = AppProcess(data, calls)
    processes.append(first.start())
    page = new_page(first.url)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=SLOW)  # a fresh process loads slowly
    approval_on(page)
    send(page, "What is six times seven?")
    pending_code(page, HELD)
    live = step_title(page, "Step 1")
    expect(live).to_contain_text("waits for your approval")
    first.kill()

    second = AppProcess(data, calls)
    second.port = first.port  # the same address: the page reloads where it was
    processes.append(second.start())
    reload_after_restart(page)
    pending_code(page, HELD)
    chat = page.locator(CHAT)
    expect(step_title(page, "Step 1")).to_have_count(1)
    expect(step_title(page, "Step 1")).to_contain_text("waits for your approval")
    expect(chat.get_by_text("result = 6 * 7")).to_have_count(1)  # in the card alone
    expect(chat).not_to_contain_text("interrupted")
    run = page.get_by_role("button", name="Run", exact=True)
    expect(run).to_be_focused()
    page.keyboard.press("Enter")
    expect(bot(page, "The answer is 42.")).to_be_visible(timeout=SLOW)
    expect(step_title(page, "Step 1")).to_have_count(1)
    expect(chat).not_to_contain_text("Waiting for your approval")
