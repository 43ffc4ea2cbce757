"""Approve before it runs, in Chromium: a person turns approval on for the conversation, sees
the code the agent wants to run, edits it, runs it and sees the edited result; skips an
action with a reason; reloads while an action waits and answers from the new page. The page
with a pending approval has no serious accessibility violation, light or dark."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import CHAT, bot, send, step_title
from tests.e2e.test_ui_pass import serious_violations

pytestmark = pytest.mark.e2e

PROPOSED = "<code>\nresult = 6 * 7\nfinal_answer(f'The answer is {result}.')\n</code>"
SWITCH = "Ask me before running code or tools"
PANEL, EDITOR = "#approval-run", "#approval-editor textarea"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    server = ScriptedApp(tmp_path_factory.mktemp("uploads"), executor="local").start()
    yield server
    server.stop()


def approval_on(page) -> None:
    """Turn approval on for this page's conversation with the labelled switch (keyboard)."""
    switch = page.get_by_label(SWITCH)
    switch.focus()
    page.keyboard.press("Space")
    expect(switch).to_be_checked()
    said = page.get_by_text("the agent asks before it runs code or tools")
    expect(said).to_be_visible()
    expect(said).to_be_hidden()  # the toast goes (gradio's toasts nest their controls)


def pending_code(page, code: str) -> None:
    expect(page.locator(PANEL)).to_be_visible()
    expect(page.locator(EDITOR)).to_have_value(code)
    expect(page.locator(CHAT).get_by_text("Waiting for your approval")).to_be_visible()


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_pending_code_is_edited_then_run_and_the_edited_result_shows(app, open_page, dark):
    app.script = lambda: [PROPOSED]
    page = open_page(app.url, dark=dark)
    approval_on(page)
    send(page, "What is six times seven?")
    pending_code(page, "result = 6 * 7\nfinal_answer(f'The answer is {result}.')")
    found = serious_violations(page)
    assert not found, "\n".join(found)
    expect(page.locator(EDITOR)).not_to_be_editable()
    page.get_by_role("button", name="Edit before running").click()
    editor = page.locator(EDITOR)
    expect(editor).to_be_editable()
    editor.fill("result = 6 * 9\nfinal_answer(f'The answer is {result}.')")
    page.get_by_role("button", name="Run edited").click()
    expect(bot(page, "The answer is 54.")).to_be_visible()
    expect(page.locator(PANEL)).to_be_hidden()
    expect(bot(page, "The answer is 42.")).to_have_count(0)
    assert len(app.agents[-1].model.calls) == 1, "the model wrote the step once"
    # The step's time is its own work; the wait for the person is said apart.
    expect(step_title(page, "Step 1")).to_contain_text("waiting for approval")


def test_a_skipped_action_tells_the_agent_why(app, open_page):
    app.script = lambda: [
        "<code>\nopen('notes.txt', 'w').write('x')\nfinal_answer('written')\n</code>",
        "<code>\nfinal_answer('Fine, I wrote nothing.')\n</code>",
    ]
    page = open_page(app.url)
    approval_on(page)
    send(page, "Write a note.")
    pending_code(page, "open('notes.txt', 'w').write('x')\nfinal_answer('written')")
    page.get_by_label("Reason (for Skip or Stop").fill("No files today.")
    page.get_by_role("button", name="Skip", exact=True).click()
    # The next step's code (its answer) waits too: every code block is held.
    pending_code(page, "final_answer('Fine, I wrote nothing.')")
    expect(page.locator("#approval-reason textarea")).to_have_value("")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(bot(page, "Fine, I wrote nothing.")).to_be_visible()
    expect(page.locator(PANEL)).to_be_hidden()
    sent = str(app.agents[-1].model.calls[-1])
    assert "No files today." in sent


def test_a_reloaded_page_shows_the_waiting_action_and_answers_it(app, open_page):
    app.script = lambda: [PROPOSED]
    page = open_page(app.url)
    approval_on(page)
    send(page, "What is six times seven?")
    pending_code(page, "result = 6 * 7\nfinal_answer(f'The answer is {result}.')")
    page.reload()
    pending_code(page, "result = 6 * 7\nfinal_answer(f'The answer is {result}.')")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(bot(page, "The answer is 42.")).to_be_visible()
    expect(page.locator(PANEL)).to_be_hidden()
