"""Stop pressed on a page reloaded mid-turn (issue 31): the page follows the running turn, and
Stop ends it as on the page that sent it: the running step shows stopped once, no error, no
extra step."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, bot, send, spinners, step_title
from tests.e2e.test_chat import by_task
from tests.waiting import GENEROUS_S

pytestmark = pytest.mark.e2e


def test_stop_after_a_reload_stops_the_running_step_once(app, open_page):
    app.model_options = {"loop": True}
    code_runs = app.gate("stop-after-reload")
    app.script = lambda: by_task(
        {
            "inventory": [
                "Thought: count the boxes.\n<code>\nboxes = 12\nprint('boxes', boxes)\n</code>",
                # The code goes on after the gate until Stop kills it: the stopped run ends its
                # step (failed) just as the page stops, and that ending must not show.
                "Thought: weigh every box.\n<code>\nimport time\nprint('weighing')\n"
                "wait_for_test('stop-after-reload')\nwhile True:\n    time.sleep(0.05)\n</code>",
            ]
        }
    )
    page = open_page(app.url)
    send(page, "Take the inventory.")
    assert code_runs.reached.wait(GENEROUS_S), "the second step's code runs"
    code_runs.open()
    page.reload()
    expect(step_title(page, "Step 2").locator(".loading-spinner")).to_be_visible()
    expect(page.locator(".stop-button")).to_be_enabled()
    page.locator(".stop-button").click()
    expect(page.locator(f"{CHAT} sub", has_text="stopped · 2 steps")).to_be_visible()
    expect(bot(page, "Stopped.")).to_be_visible()
    expect(spinners(page)).to_have_count(0)
    expect(step_title(page, "Step 1 · ran code")).to_have_count(1)
    expect(step_title(page, "Step 2 · stopped")).to_have_count(1)
    expect(step_title(page, "Step 3")).to_have_count(0)
    expect(step_title(page, "error")).to_have_count(0)
    expect(page.locator(CHAT)).not_to_contain_text("Error")
    page.reload()  # what the page kept is what was saved
    expect(step_title(page, "Step 2 · stopped")).to_have_count(1)
    expect(step_title(page, "Step 3")).to_have_count(0)
    expect(step_title(page, "error")).to_have_count(0)
