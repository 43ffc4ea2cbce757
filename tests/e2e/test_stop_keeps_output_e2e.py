"""Stop keeps what the person watched (issue 31's browser check): a step stopped while its code
prints keeps its thought, its code and the lines it had printed, live and after a reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from smolui.turns.view import STOPPED_OUTPUT_TITLE
from tests.e2e.pages import CHAT, bot, send, spinners, step_title
from tests.e2e.test_chat import by_task
from tests.waiting import GENEROUS_S

pytestmark = pytest.mark.e2e

PRINTED = "weighed box 1 of 40"
SCRIPT = (
    "Thought: weigh every box.\n<code>\nimport time\n"
    f"print('{PRINTED}')\n"
    "wait_for_test('stop keeps output')\n"
    "while True:\n    time.sleep(0.05)\n</code>"
)


def kept_output(page):
    """The stopped step's child holding what its code printed."""
    return page.locator(f"{CHAT} .thought-group").filter(
        has=page.locator(":scope > .title", has_text=STOPPED_OUTPUT_TITLE)
    )


def test_a_stopped_step_keeps_the_output_shown_before_the_stop(app, open_page):
    app.model_options = {"loop": True}
    code_runs = app.gate("stop keeps output")
    app.script = lambda: by_task({"weigh": [SCRIPT]})
    page = open_page(app.url)
    send(page, "Please weigh the boxes.")
    assert code_runs.reached.wait(GENEROUS_S), "the step's code runs, held by the test"
    code_runs.open()  # the code goes on printing nothing more, until Stop
    expect(page.locator(CHAT)).to_contain_text(PRINTED)  # watched live
    page.locator(".stop-button").click()
    expect(bot(page, "Stopped.")).to_be_visible()
    expect(spinners(page)).to_have_count(0)
    for when in ("after the stop", "after a reload"):
        stopped = step_title(page, "Step 1 · stopped")
        expect(stopped).to_have_count(1)
        if "expanded" not in (stopped.get_attribute("class") or ""):
            stopped.click()  # a finished step is folded: open it, as a person does
        expect(kept_output(page), when).to_contain_text(PRINTED)
        expect(page.locator(CHAT), when).to_contain_text("print('")  # the code
        expect(page.locator(CHAT), when).to_contain_text("weigh every box")  # the thought
        if when == "after the stop":
            page.reload()
