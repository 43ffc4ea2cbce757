"""Files out, as a person sees them in Chromium: the code writes files in its working folder
through the real sandbox, the answer offers them for download (each file and a zip), the
bytes downloaded are the bytes written, they are still offered after a reload, and the export
comes from the stored conversation through the app's own route."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, send, wait_turn_done

pytestmark = pytest.mark.e2e

WRITE_TWO = (
    "<code>\nopen('report.csv', 'w').write('month,total\\nJan,3\\n')\n"
    "open('notes.txt', 'w').write('written by the code')\n"
    "final_answer('I wrote the report.')\n</code>"
)


def test_files_the_code_writes_are_offered_for_download_and_survive_a_reload(app, open_page):
    app.script = lambda: [WRITE_TWO]
    page = open_page(app.url)
    send(page, "Write a report")
    wait_turn_done(page)
    link = page.locator(f"{CHAT} a", has_text="report.csv")
    expect(link).to_be_visible()
    expect(page.locator(f"{CHAT} a", has_text="Download all (.zip)")).to_be_visible()
    href = link.get_attribute("href")
    assert href and href.startswith("/smolui/files/"), href

    with page.expect_download() as started:
        link.click()
    download = started.value
    assert download.suggested_filename == "report.csv"
    assert Path(download.path()).read_bytes() == b"month,total\nJan,3\n"

    zip_href = page.locator(f"{CHAT} a", has_text="Download all (.zip)").get_attribute("href")
    answer = page.request.get(app.url.rstrip("/") + zip_href)
    with zipfile.ZipFile(io.BytesIO(answer.body())) as archive:
        assert archive.read("notes.txt") == b"written by the code"

    # Another visitor does not get the file by guessing: a wrong key is a 404.
    other = page.context.browser.new_context()
    try:
        forged = re.sub(r"^(/smolui/files/[^/]+/)[^/]+/", r"\1not-the-key/", href)
        assert other.request.get(app.url.rstrip("/") + forged).status == 404
    finally:
        other.close()

    page.reload()
    expect(page.locator(f"{CHAT} a", has_text="report.csv")).to_have_attribute("href", href)


def test_the_export_is_the_stored_conversation_streamed_by_the_app_s_route(app, open_page):
    app.script = lambda: ["<code>\nfinal_answer('The stored answer.')\n</code>"]
    page = open_page(app.url)
    send(page, "Answer from the store")
    wait_turn_done(page)
    with page.expect_download() as started:
        page.locator(".export-json").click()
    download = started.value
    assert download.url.startswith(app.url + "smolui/export/"), download.url
    exported = Path(download.path()).read_text(encoding="utf-8")
    assert "The stored answer." in exported and "Answer from the store" in exported
    # The link was for this page only: it does not name the conversation, and a made-up one
    # finds nothing.
    assert page.request.get(app.url + "smolui/export/made-up.md").status == 404
