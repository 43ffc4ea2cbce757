"""Attachments on a shared page, as a person shares them in Chromium (issue 31's browser check):
with "Include my attachments" ticked the visitor downloads the attached PDF from the share;
unticked, the shared page names the upload nowhere (not the note that it was attached, not
the person's message, not the title)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import send, wait_turn_done
from tests.e2e.test_share_e2e import visitor_page
from tests.samples import write_pdf

pytestmark = pytest.mark.e2e

ANSWER = "The memo asks for a new budget."
SCRIPT = [f"<code>\nfinal_answer('{ANSWER}')\n</code>"]


@pytest.fixture(scope="module")
def sharing_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    """The real app with sharing open to anyone holding a link."""
    server = ScriptedApp(tmp_path_factory.mktemp("uploads"), sharing="public").start()
    yield server
    server.stop()


def shared_link(page, include: bool) -> str:
    """Share the conversation shown, with or without its attachments; the link."""
    tick = page.get_by_label("Include my attachments")
    if tick.is_checked() != include:
        tick.click()
    page.get_by_role("button", name="Share a read-only link").click()
    box = page.locator(".share-link").get_by_role("textbox")
    expect(box).to_have_value(re.compile(r"/smolui/share/\S+"))
    return box.input_value()


@pytest.mark.parametrize("include", [True, False], ids=["ticked", "unticked"])
def test_an_attachment_downloads_from_the_share_only_when_chosen(
    sharing_app, open_page, browser, tmp_path, include
):
    sharing_app.script = lambda: list(SCRIPT)
    memo = write_pdf(tmp_path / "memo.pdf", ["Please plan a new budget."])
    page = open_page(sharing_app.url)
    send(page, "What does memo.pdf ask for?", files=[str(memo)])
    wait_turn_done(page)
    expect(page.locator("#chat")).to_contain_text("Attached memo.pdf")
    link = shared_link(page, include)

    shared = visitor_page(browser, link)
    try:
        expect(shared.get_by_text(ANSWER, exact=True)).to_be_visible()
        if include:
            download_link = shared.get_by_role("link", name="memo.pdf")
            expect(download_link).to_be_visible()
            with shared.expect_download() as started:
                download_link.click()
            saved = started.value.path()
            assert saved is not None and saved.read_bytes() == memo.read_bytes()
        else:
            expect(shared.get_by_text("Attachment (not shared)")).to_be_visible()
            expect(shared.locator("body")).not_to_contain_text("memo.pdf")
            assert "memo.pdf" not in shared.title()
            assert "memo.pdf" not in shared.content(), "not even in the page's source"
    finally:
        shared.context.close()
