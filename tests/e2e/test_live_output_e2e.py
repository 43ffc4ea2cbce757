"""What a step's code prints shows on the page while the code runs (issue 31), under the running
step, and the step's final output takes its place when it ends; a reload shows the final one."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, bot, send, step_title, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.waiting import GENEROUS_S

pytestmark = pytest.mark.e2e

SCRIPT = (
    "Thought: read the parts one by one.\n<code>\n"
    "print('read part 1 of 2')\n"
    "wait_for_test('live output')\n"
    "print('read part 2 of 2')\n"
    "</code>"
)


def live_block(page):
    """The "Output so far" child of the running step."""
    return page.locator(f"{CHAT} .thought-group").filter(
        has=page.locator(":scope > .title", has_text="Output so far")
    )


def test_printed_lines_show_while_the_step_runs_then_the_final_output(app, open_page):
    app.model_options = {"loop": True}
    code_runs = app.gate("live output")
    app.script = lambda: by_task(
        {
            "parts": [
                SCRIPT,
                "Thought: done.\n<code>\nfinal_answer('Both parts read.')\n</code>",
            ]
        }
    )
    page = open_page(app.url)
    send(page, "Read the parts.")
    assert code_runs.reached.wait(GENEROUS_S), "the step's code runs, held by the test"
    expect(step_title(page, "Step 1").locator(".loading-spinner")).to_be_visible()
    expect(live_block(page)).to_contain_text("read part 1 of 2")
    expect(live_block(page)).not_to_contain_text("read part 2 of 2")
    code_runs.open()
    expect(bot(page, "Both parts read.")).to_be_visible()
    wait_turn_done(page)
    expect(live_block(page)).to_have_count(0)
    step_title(page, "Step 1 · ran code").click()
    final = page.locator(f"{CHAT} code.language-text", has_text="read part 2 of 2")
    expect(final).to_be_visible()
    expect(final).to_contain_text("read part 1 of 2")
    page.reload()  # what was kept is the final output only
    step_title(page, "Step 1 · ran code").click()
    expect(page.locator(f"{CHAT} code.language-text", has_text="read part 2 of 2")).to_be_visible()
    expect(page.locator(CHAT)).not_to_contain_text("Output so far")
