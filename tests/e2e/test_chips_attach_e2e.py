"""Attachment chips in Chromium, as a person makes them (issue 31, from a browser check): a file
gradio refuses for its size leaves the other chips' names and checks as they were, and a
file attached after it is named too; an example's bundled file, sent with its click, is
attached like one attached by hand; a saved terminal log named .log is accepted like the same
text named .txt."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.e2e.test_first_screen_e2e import TERMINAL_LOG
from tests.e2e.test_ui_pass import serious_violations

pytestmark = pytest.mark.e2e

CHIPS = "#message .thumbnail-wrapper"
REFUSED = re.compile(r"\bsmolui-refused\b")
PAPERCLIP = '#message [data-testid="upload-button"]:visible'


def attach(page, *paths: Path) -> None:
    """Attach files as a person does: the paperclip, then the file chooser."""
    with page.expect_file_chooser() as chooser:
        page.locator(PAPERCLIP).first.click()
    chooser.value.set_files([str(path) for path in paths])


def test_a_file_too_big_leaves_the_chips_named_and_checked(app, open_page, tmp_path):
    renamed = tmp_path / "report.pdf"
    renamed.write_bytes(b"MZ\x90\x00\x03\x00\x00\x00\x04\x00" * 30)  # a Windows program
    big = tmp_path / "huge.txt"
    with big.open("wb") as file:
        file.truncate(int((app.settings.max_file_size_mb + 1) * 1024 * 1024))
    notes = tmp_path / "notes.txt"
    notes.write_text("x" * 600)
    page = open_page(app.url)
    chips = page.locator(CHIPS)
    attach(page, renamed)
    expect(chips.nth(0)).to_have_class(REFUSED)
    expect(chips.nth(0)).to_contain_text("Will be refused: ")
    attach(page, big)
    toast = page.locator('[data-testid="toast-text"]', has_text="huge.txt")
    expect(toast).to_contain_text("maximum allowed size")
    attach(page, notes)
    expect(chips).to_have_count(2)
    expect(chips.nth(1).locator(".smolui-chip")).to_have_text("notes.txt · TXT · 600 bytes")
    expect(chips.nth(1)).not_to_have_class(REFUSED)
    expect(chips.nth(0).locator(".smolui-chip")).to_have_text("report.pdf · PDF · 300 bytes")
    expect(chips.nth(0)).to_have_class(REFUSED)  # still, after gradio's own refusal
    expect(chips.nth(0)).to_contain_text("a Windows program")
    # gradio's own toast nests its buttons (axe: nested-interactive): read, then dismissed.
    page.locator('[data-testid="toast-close"]').first.click()
    expect(toast).to_have_count(0)
    found = serious_violations(page)
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "words, name",
    [
        ("Summarize the attached report", "greenhouse_report.pdf"),
        ("Plot the monthly totals", "monthly_sales.csv"),
    ],
    ids=["report", "table"],
)
def test_an_examples_file_goes_with_it_like_one_attached_by_hand(app, open_page, words, name):
    app.model_options = {"loop": True}
    app.script = lambda: ["<code>\nfinal_answer('Read it.')\n</code>"]
    page = open_page(app.url)
    page.locator("#examples").get_by_text(words).click()  # sent at once, its file with it
    user = page.locator(f'{CHAT} [data-testid="user"]')
    expect(user.filter(has_text=words)).to_have_count(1)
    expect(user.filter(has_text=name)).to_have_count(1)
    expect(bot(page, f"Attached {name}")).to_be_visible()  # checked as an upload is
    expect(bot(page, "Read it.")).to_be_visible()
    wait_turn_done(page)
    expect(page.locator(CHIPS)).to_have_count(0)  # nothing left behind in the box
    found = serious_violations(page)
    assert not found, "\n".join(found)


def test_a_terminal_log_named_log_is_accepted(app, open_page, tmp_path):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"log": ["<code>\nfinal_answer('log read')\n</code>"]})
    log = tmp_path / "terminal.log"
    log.write_bytes(TERMINAL_LOG)
    page = open_page(app.url)
    attach(page, log)
    chip = page.locator(CHIPS)
    expect(chip.locator(".smolui-chip")).to_have_text(re.compile(r"^terminal\.log · LOG · \d+ KB$"))
    invalid = page.locator('[data-testid="toast-text"]', has_text="Invalid file type")
    expect(invalid).to_have_count(0)
    page.locator(MESSAGE_BOX).fill("What does this log say?")
    page.locator(MESSAGE_BOX).press("Enter")
    expect(bot(page, "Attached terminal.log")).to_be_visible()
    expect(bot(page, "Could not attach")).to_have_count(0)
    wait_turn_done(page)
