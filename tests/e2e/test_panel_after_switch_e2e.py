"""The side panel after a version switch, as a person sees it in Chromium (issue 31): a turn
writes report.csv, the person edits that message (a branch whose turn writes nothing) and
switches back with the "< 1/2 >" arrows, and the panel still offers report.csv's Download
link, with the mouse and from the keyboard alone. The switch lets the conversation's agent
go; the panel is read from the store then, not left saying "No files yet"."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.keyboard import tab_to, to_the_box
from tests.e2e.pages import CHAT, send, wait_turn_done
from tests.e2e.test_chat import by_task

pytestmark = pytest.mark.e2e

PANEL = "div.block.side-panel"
SWITCHER = f"{CHAT} .smolui-versions"
REPORT = "month,total\nJan,3\n"
RULES = {
    "Monthly": [
        f"<code>\nopen('report.csv', 'w').write({REPORT!r})\n"
        "final_answer('The report is written.')\n</code>"
    ],
    "Thanks": ["<code>\nfinal_answer('You are welcome.')\n</code>"],
}


def test_the_panel_still_offers_the_file_after_switching_back(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(RULES)
    page = open_page(app.url)
    send(page, "Monthly sales report")
    wait_turn_done(page)
    panel = page.locator(PANEL)
    shown = panel.get_by_role("link", name="report.csv · message 1", exact=True)
    other = panel.get_by_role("link", name="report.csv · another branch", exact=True)
    expect(shown).to_be_visible()
    href = shown.get_attribute("href")

    row = page.locator(f"{CHAT} .message-row.user-row").first
    row.hover()
    row.locator('button[aria-label="Edit"]').click()
    page.locator(f"{CHAT} textarea").fill("Thanks")
    page.locator(f'{CHAT} button[aria-label="Submit"]:visible').click()
    expect(page.locator(SWITCHER)).to_contain_text("2/2")
    wait_turn_done(page)
    expect(other).to_be_visible()

    page.get_by_role("button", name="Previous version").click()
    expect(page.locator(SWITCHER)).to_contain_text("1/2")
    expect(shown).to_have_attribute("href", href)
    expect(panel).not_to_contain_text("No files yet")
    with page.expect_download() as started:
        shown.click()
    assert Path(started.value.path()).read_text(encoding="utf-8") == REPORT

    # From the keyboard: to the other version and back, then Tab to the link and Enter.
    to_the_box(page)
    tab_to(page, page.get_by_role("button", name="Next version"), "Shift+Tab")
    page.keyboard.press("Enter")
    expect(page.locator(SWITCHER)).to_contain_text("2/2")
    expect(other).to_be_visible()
    page.keyboard.press("ArrowLeft")  # an arrow key switches from either arrow
    expect(page.locator(SWITCHER)).to_contain_text("1/2")
    expect(shown).to_have_attribute("href", href)
    tab_to(page, shown)
    with page.expect_download() as started:
        page.keyboard.press("Enter")
    assert Path(started.value.path()).read_text(encoding="utf-8") == REPORT
