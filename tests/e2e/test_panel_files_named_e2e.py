"""The side panel tells same-named files apart, as a person sees it in Chromium: the code wrote
report.csv in the first turn and again in the third, and the panel's two links (their text, and
so their accessible names) say which message each came from, also after a reload; the list
under a turn's own answer stays as it was; the zip of a turn's files is named after the
conversation."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, send, wait_turn_done
from tests.e2e.test_chat import by_task

pytestmark = pytest.mark.e2e

PANEL = "div.block.side-panel"
TITLE = "Monthly sales"


def write(text: str, also_notes: bool = False) -> str:
    notes = "open('notes.txt', 'w').write('by month')\n" if also_notes else ""
    return (
        f"<code>\nopen('report.csv', 'w').write({text!r})\n{notes}"
        "final_answer('The report is written.')\n</code>"
    )


RULES = {
    "Monthly": [write("first\n")],
    "Thanks": ["<code>\nfinal_answer('You are welcome.')\n</code>"],
    "again": [write("second\n", also_notes=True)],
}


def test_the_panel_says_which_message_wrote_each_file_of_the_same_name(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(RULES)
    page = open_page(app.url)
    send(page, TITLE)
    wait_turn_done(page)
    send(page, "Thanks")
    wait_turn_done(page, turns=2)
    send(page, "Write it again")
    wait_turn_done(page, turns=3)

    panel = page.locator(PANEL)
    first = panel.get_by_role("link", name="report.csv · message 1", exact=True)
    third = panel.get_by_role("link", name="report.csv · message 3", exact=True)
    expect(first).to_be_visible()
    expect(third).to_be_visible()
    href = first.get_attribute("href")
    assert href and href.startswith("/smolui/files/"), href
    expect(panel.get_by_role("link", name="notes.txt · message 3", exact=True)).to_be_visible()
    with page.expect_download() as started:
        third.click()
    assert Path(started.value.path()).read_bytes() == b"second\n"
    # Under the third answer, its own list names the file alone: the turn is plain there.
    own = page.locator(CHAT).get_by_role("link", name="report.csv", exact=True)
    expect(own).to_have_count(2)

    with page.expect_download() as started:
        page.locator(CHAT).get_by_role("link", name="Download all (.zip)").click()
    assert started.value.suggested_filename == f"{TITLE} - files.zip"
    with zipfile.ZipFile(io.BytesIO(Path(started.value.path()).read_bytes())) as archive:
        assert archive.read("report.csv") == b"second\n"

    page.reload()  # reopened from the store: the same places
    panel = page.locator(PANEL)
    again = panel.get_by_role("link", name="report.csv · message 1", exact=True)
    expect(again).to_have_attribute("href", href)
    expect(panel.get_by_role("link", name="report.csv · message 3", exact=True)).to_be_visible()


def test_a_file_of_a_branch_not_shown_says_so(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(RULES)
    page = open_page(app.url)
    send(page, TITLE)
    wait_turn_done(page)
    row = page.locator(f"{CHAT} .message-row.user-row").first
    row.hover()
    row.locator('button[aria-label="Edit"]').click()
    editor = page.locator(f"{CHAT} textarea")
    editor.fill("Write it again")
    page.locator(f'{CHAT} button[aria-label="Submit"]:visible').click()
    expect(page.locator(f"{CHAT} .smolui-versions")).to_contain_text("2/2")
    wait_turn_done(page)

    panel = page.locator(PANEL)
    shown = panel.get_by_role("link", name="report.csv · message 1", exact=True)
    other = panel.get_by_role("link", name="report.csv · another branch", exact=True)
    expect(shown).to_be_visible()
    expect(other).to_be_visible()
    assert shown.get_attribute("href") != other.get_attribute("href")
