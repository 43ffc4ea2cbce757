"""Approve before it runs, in Chromium, where it is hardest: the app is killed (-9), or stopped
as a supervisor stops it (SIGTERM: the waiting action is kept, not stopped), while an action
waits and started again, and the page's answer resumes the turn without a second model call
for that step; two pages of one conversation press Run at once, the action runs once and
the other page is told."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from smolui.approvals.service import ALREADY_ANSWERED
from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, reload_after_restart, send
from tests.e2e.test_approvals_e2e import PANEL, approval_on, pending_code
from tests.e2e.test_durable import SLOW, AppProcess
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

TOAST = '[data-testid="toast-text"]'
HELD = "result = 6 * 7\nfinal_answer(f'The answer is {result}.')"


@pytest.fixture
def processes():
    started: list[AppProcess] = []
    yield started
    for process in started:
        process.kill()


def model_calls(calls: Path) -> int:
    return len(calls.read_text().splitlines()) if calls.exists() else 0


@pytest.mark.parametrize("stop", ["kill", "terminate"], ids=["kill -9", "SIGTERM"])
def test_after_kill_9_and_a_restart_the_waiting_action_is_approved_and_the_turn_ends(
    tmp_path, processes, new_page, stop
):
    data, calls = tmp_path / "data", tmp_path / "calls.jsonl"
    first = AppProcess(data, calls)
    processes.append(first.start())
    page = new_page(first.url)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=SLOW)  # a fresh process loads slowly
    approval_on(page)
    send(page, "What is six times seven?")
    pending_code(page, HELD)
    assert model_calls(calls) == 1
    getattr(first, stop)()

    second = AppProcess(data, calls)
    second.port = first.port  # the same address: the page reloads where it was
    processes.append(second.start())
    reload_after_restart(page)
    pending_code(page, HELD)
    page.get_by_role("button", name="Run", exact=True).click()
    expect(bot(page, "The answer is 42.")).to_be_visible(timeout=SLOW)
    expect(page.locator(PANEL)).to_be_hidden()
    expect(page.locator(CHAT)).not_to_contain_text("Waiting for your approval")
    assert model_calls(calls) == 1, "the model was not asked again for the held step"
    page.reload()  # the resumed turn was saved
    expect(bot(page, "The answer is 42.")).to_be_visible(timeout=SLOW)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    server = ScriptedApp(tmp_path_factory.mktemp("uploads"), executor="local").start()
    yield server
    server.stop()


def test_two_pages_pressing_run_at_once_run_the_action_once(app, open_page, browser, tmp_path):
    ran = tmp_path / "ran.txt"
    counted = f"open({str(ran)!r}, 'a').write('ran\\n')\nfinal_answer('Counted.')"
    app.script = lambda: [f"<code>\n{counted}\n</code>"]
    page = open_page(app.url)
    approval_on(page)
    send(page, "Count once.")
    pending_code(page, counted)
    # A second visitor's page on the same conversation: the same browser state, its own context.
    context = browser.new_context(storage_state=page.context.storage_state())
    context.set_default_timeout(60_000)
    try:
        other = context.new_page()
        other.goto(app.url)
        pending_code(other, counted)
        # Both buttons found first, then both pressed: neither page has heard back yet.
        runs = [
            p.get_by_role("button", name="Run", exact=True).element_handle() for p in (page, other)
        ]
        for run in runs:
            run.dispatch_event("click")
        # The loser is told at once, and a toast goes away after a while: looked for before
        # the winner's answer, which may take longer than that on a busy machine.
        told = [p.locator(TOAST, has_text="already answered") for p in (page, other)]
        wait_for(lambda: sum(t.count() for t in told) >= 1, "the losing page is told")
        assert sum(t.count() for t in told) == 1, "the losing page, and it alone, is told"
        assert ALREADY_ANSWERED in (told[0].all_inner_texts() + told[1].all_inner_texts())[0]
        expect(bot(page, "Counted.")).to_be_visible()
        assert ran.read_text().splitlines() == ["ran"], "the action ran once"
    finally:
        context.close()
