"""The side panel lists the files the conversation's code wrote, as a person sees it in Chromium:
after the turn, a link per file in the panel, which downloads the bytes written; after a reload
(the conversation reopened from the store) the panel lists them again with the same link."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from smolui.render.panel import WRITTEN_HEADING
from tests.e2e.pages import send, wait_turn_done

pytestmark = pytest.mark.e2e

PANEL = "div.block.side-panel"
WRITE_ONE = (
    "<code>\nopen('summary.csv', 'w').write('city,visits\\nOslo,4\\n')\n"
    "final_answer('The summary is written.')\n</code>"
)


def test_the_side_panel_lists_the_files_the_code_wrote_with_working_links(app, open_page):
    app.script = lambda: [WRITE_ONE]
    page = open_page(app.url)
    panel = page.locator(PANEL)
    expect(panel.get_by_role("link", name="summary.csv")).to_have_count(0)
    send(page, "Write a summary")
    wait_turn_done(page)

    link = panel.get_by_role("link", name="summary.csv")
    expect(link).to_be_visible()
    expect(panel).to_contain_text(WRITTEN_HEADING)
    href = link.get_attribute("href")
    assert href and href.startswith("/smolui/files/"), href
    with page.expect_download() as started:
        link.click()
    download = started.value
    assert download.suggested_filename == "summary.csv"
    assert Path(download.path()).read_bytes() == b"city,visits\nOslo,4\n"

    page.reload()  # the conversation is reopened: its files are read from the store
    expect(page.locator(PANEL).get_by_role("link", name="summary.csv")).to_have_attribute(
        "href", href
    )
