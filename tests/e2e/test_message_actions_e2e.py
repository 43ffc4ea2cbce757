"""The chat's own icons in Chromium: retry, undo and edit of the last message, the trash as
Clear, attachment chips with names and refused files marked, the side panel during a run,
and an export made from the stored chat.

Screenshots go to tests/e2e/artifacts/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from agents.memory.steps import TaskStep
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.e2e.test_ui_pass import serious_violations, shot
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

USER = f'{CHAT} [data-testid="user"]'
# The visitor's messages whose row of buttons shows a frame but no button (a stray dot).
EMPTY_BUTTON_FRAMES = """() => [...document.querySelectorAll('#chat .user-row .message-buttons')]
    .filter((frame) => frame.getClientRects().length
        && ![...frame.querySelectorAll('button')].some((b) => b.getClientRects().length))
    .length"""


def tasks(app) -> list[str]:
    """The tasks the newest conversation's agent remembers."""
    agent = app.agents[-1]
    return [step.task for step in agent.memory.steps if isinstance(step, TaskStep)]


def wait_remembered(app, expected: list[str]) -> None:
    """Wait until the newest agent remembers exactly the tasks `expected` (fail if it never does).

    A click's turn runs on the server after the page updates: wait instead of racing it.
    """
    try:
        wait_for(lambda: tasks(app) == expected, f"the agent remembers only {expected}")
    except AssertionError as error:  # say what it remembers instead
        raise AssertionError(
            f"{error}; it remembers {tasks(app)} ({len(app.agents)} agents)"
        ) from error


def icon(page, label: str):
    """The one visible chat icon with this label (gradio repeats them; the page shows one)."""
    return page.locator(f'{CHAT} button[aria-label="{label}"]:visible')


def test_undo_retry_and_edit_take_the_last_turn_back(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "first": [  # the retry's answer differs: the test sees the retry's turn
                "<code>\nfinal_answer('answer to first')\n</code>",
                "<code>\nfinal_answer('answer to first, again')\n</code>",
            ],
            "second": ["<code>\nfinal_answer('answer to second')\n</code>"],
            "third": ["<code>\nfinal_answer('answer to third')\n</code>"],
        }
    )
    page = open_page(app.url)
    send(page, "first question")
    wait_turn_done(page)
    send(page, "second question")
    wait_turn_done(page, 2)
    with page.expect_download() as download:  # from the stored chat, at once
        page.locator(".export-md").click()
    assert "answer to second" in Path(download.value.path()).read_text(encoding="utf-8")
    expect(icon(page, "Undo")).to_have_count(1)  # one row of icons per turn, not per message
    icon(page, "Undo").click()
    expect(page.locator(USER)).to_have_count(1)
    expect(bot(page, "answer to second")).to_have_count(0)
    wait_remembered(app, ["first question"])
    icon(page, "Retry").click()  # after an undo, retry sends the message now last again
    # Waited for by its own answer: the first answer's footer and the box, still enabled
    # before the retry's reply arrives, would pass for the retry's end (an edit then found
    # the retry's turn running: "still answering", 1 run in 8 under load).
    expect(bot(page, "answer to first, again")).to_have_count(1)
    expect(bot(page, "answer to first")).to_have_count(1)
    wait_turn_done(page)
    wait_remembered(app, ["first question"])
    expect(icon(page, "Edit")).to_have_count(1)
    icon(page, "Edit").click()
    page.locator(f"{CHAT} textarea").fill("third question")
    icon(page, "Submit").click()
    expect(page.locator(USER, has_text="third question")).to_be_visible()
    expect(bot(page, "answer to third")).to_be_visible()
    wait_turn_done(page)
    expect(bot(page, "answer to first")).to_have_count(0)
    wait_remembered(app, ["third question"])
    shot(page, "message-actions")


def test_the_trash_asks_and_clears_like_clear(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: ["<code>\nkept = 1\nfinal_answer('kept it')\n</code>"]
    page = open_page(app.url)
    send(page, "remember something")
    wait_turn_done(page)
    trash = page.locator(f'{CHAT} .top-panel button[aria-label="Clear"]')
    page.once("dialog", lambda dialog: dialog.dismiss())
    trash.click()
    expect(bot(page, "kept it")).to_be_visible()  # "Cancel" keeps the chat and the agent
    expect(page.locator(CHAT).get_by_text("Error", exact=True)).to_have_count(0)
    assert tasks(app) == ["remember something"]
    page.once("dialog", lambda dialog: dialog.accept())
    trash.click()
    expect(page.locator(USER)).to_have_count(0)
    page.reload()  # the server forgot it too: a reload does not bring it back
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(page.locator(USER)).to_have_count(0)
    assert tasks(app) == []


def test_attachments_show_names_and_refused_files_are_marked(app, open_page, tmp_path):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "these": [
                # The step's code waits for the test: the panel is seen during the run.
                "Thought: look.\n<code>\nwait_for_test('look')\n</code>",
                "<code>\nfinal_answer('One text file.')\n</code>",
            ]
        }
    )
    good = tmp_path / "notes.txt"
    good.write_text("hello notes\n" * 50)
    bad = tmp_path / "fake.pdf"
    bad.write_text("not a pdf at all")
    step_runs = app.gate("look")
    page = open_page(app.url)
    page.locator("#message input[type=file]").set_input_files([str(good), str(bad)])
    chips = page.locator("#message .smolui-chip")
    expect(chips).to_have_text(["notes.txt · TXT · 600 bytes", "fake.pdf · PDF · 16 bytes"])
    page.locator(MESSAGE_BOX).fill("what are these?")
    page.locator(MESSAGE_BOX).press("Enter")
    panel = page.locator(".prose.side-panel")
    expect(panel).to_contain_text("answering")  # the panel follows the run
    expect(panel).not_to_contain_text("No files yet")
    step_runs.open()
    wait_turn_done(page)
    expect(chips).to_have_count(0)
    refused = page.locator(f"{CHAT} .user-row del", has_text="fake.pdf")
    expect(refused).to_be_visible()
    expect(page.locator(USER, has_text="refused: the content is not a PDF")).to_be_visible()
    expect(bot(page, "Could not attach fake.pdf")).to_be_visible()
    expect(page.locator(f"{CHAT} .user-row del", has_text="notes.txt")).to_have_count(0)
    expect(panel).to_contain_text("notes.txt")
    expect(panel).not_to_contain_text("fake.pdf")
    assert page.evaluate(EMPTY_BUTTON_FRAMES) == 0, "an empty button frame beside a message"
    page.locator(f"{CHAT} [role=log]").evaluate("log => { log.scrollTop = 0; }")
    shot(page, "upload-refusal")
    found = serious_violations(page)
    assert not found, "\n".join(found)


def test_an_export_is_the_stored_conversation_shown(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: ["<code>\nfinal_answer('ok')\n</code>"]
    page = open_page(app.url)
    send(page, "one")
    wait_turn_done(page)
    send(page, "two")
    wait_turn_done(page, 2)
    with page.expect_download() as download:
        page.locator(".export-json").click()
    exported = Path(download.value.path()).read_text(encoding="utf-8")
    assert '"one"' in exported and '"two"' in exported
    page.locator(".new-chat-button").click()
    expect(page.locator(USER)).to_have_count(0)
    page.locator(".export-md").click()  # nothing stored yet: a notice, no download
    expect(page.get_by_text("Nothing to export yet", exact=False)).to_be_visible()
    page.locator(".conversation-list label").first.click()  # back to the first conversation
    expect(page.locator(USER)).to_have_count(2)
    with page.expect_download() as download:
        page.locator(".export-md").click()
    assert "two" in Path(download.value.path()).read_text(encoding="utf-8")
