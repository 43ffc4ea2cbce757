"""A newcomer's first screen, attached files and search, in Chromium (issue 31): a plain line
on what the model can do, the operator's details folded away; a renamed program or an empty
file turns its chip red with the reason before sending, a saved terminal log is accepted;
a search that finds nothing says so."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from smolui.render.panel import DEMO_LINE
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.e2e.test_ui_pass import PHONE, WIDE, serious_violations

pytestmark = pytest.mark.e2e

PANEL = ".prose.side-panel"
CHIPS = "#message .thumbnail-wrapper"
REFUSED = re.compile(r"\bsmolui-refused\b")
# A saved terminal session: colours, a window title, a bell, a cursor move, a cut character.
TERMINAL_LOG = (
    b"\x1b]0;me@box: ~\x07\x1b[01;32mme@box\x1b[00m:~$ make test\r\n"
    b"\x1b[32mok\x1b[0m 12 passed \xe2\x9c\x93\r\n\x1b[1A\x1b[2K progress \xe2\x96\x88\xe2\x96\x88 100%\r\n"
) * 20 + b"\xe2\x96"


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["wide", "phone"])
def test_the_first_screen_says_what_the_model_can_do(app, open_page, dark, size):
    page = open_page(app.url, viewport=size, dark=dark)
    line = page.locator(".smolui-header").get_by_text(DEMO_LINE)
    expect(line).to_be_visible()  # on a phone too, where the sidebar is folded
    found = serious_violations(page)
    assert not found, "\n".join(found)


def test_operator_details_are_folded_under_about_this_server(app, open_page):
    page = open_page(app.url)
    panel = page.locator(PANEL)
    expect(panel).to_contain_text("Model: scripted demo")
    expect(page.get_by_text(DEMO_LINE)).to_have_count(1)  # said once, in the header
    expect(panel).not_to_contain_text(DEMO_LINE)
    expect(panel).to_contain_text("Now: ready")
    details = panel.get_by_text("Max steps per message")
    expect(details).to_be_hidden()
    expect(panel.get_by_text("--model", exact=False)).to_be_hidden()
    about = panel.get_by_text("About this server")
    about.focus()
    page.keyboard.press("Enter")  # a summary opens with the keyboard
    expect(details).to_be_visible()
    found = serious_violations(page)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_a_file_that_will_be_refused_turns_red_before_sending(app, open_page, tmp_path, dark):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"files": ["<code>\nfinal_answer('read them')\n</code>"]})
    renamed = tmp_path / "report.pdf"
    renamed.write_bytes(b"MZ\x90\x00\x03\x00\x00\x00\x04\x00" * 30)  # a Windows program
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    log = tmp_path / "session.txt"
    log.write_bytes(TERMINAL_LOG)
    page = open_page(app.url, dark=dark)
    page.locator("#message input[type=file]").set_input_files([str(renamed), str(empty), str(log)])
    chips = page.locator(CHIPS)
    expect(chips).to_have_count(3)
    expect(chips.nth(0)).to_contain_text("report.pdf · PDF")  # name, type, size at once
    expect(chips.nth(0)).to_have_class(REFUSED, timeout=60_000)  # nothing sent yet
    expect(chips.nth(0)).to_contain_text("a Windows program")
    expect(chips.nth(1)).to_contain_text("empty")
    expect(chips.nth(1)).to_have_class(REFUSED)
    expect(chips.nth(2)).to_contain_text("session.txt · TXT")
    expect(chips.nth(2)).not_to_have_class(REFUSED)
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0)
    found = serious_violations(page)
    assert not found, "\n".join(found)
    page.locator(MESSAGE_BOX).fill("Read these files")
    page.locator(MESSAGE_BOX).press("Enter")
    expect(bot(page, "Attached session.txt")).to_be_visible()
    expect(bot(page, "Could not attach report.pdf")).to_be_visible()
    wait_turn_done(page)


def test_a_search_with_no_hit_says_so(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"weather": ["<code>\nfinal_answer('sunny')\n</code>"]})
    page = open_page(app.url)
    send(page, "How is the weather?")
    wait_turn_done(page)
    search = page.get_by_role("textbox", name="Search conversations")
    search.fill("zebra")
    expect(page.get_by_text("No conversation matches \u201czebra\u201d.")).to_be_visible()
    search.fill("weather")
    expect(page.locator(".conversation-list label")).to_have_count(1)
    expect(page.get_by_text("No conversation matches")).to_have_count(0)


def test_a_terminal_log_file_is_read_as_text(app, open_page, tmp_path: Path):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"log": ["<code>\nfinal_answer('log read')\n</code>"]})
    log = tmp_path / "build.txt"
    log.write_bytes(TERMINAL_LOG)
    page = open_page(app.url)
    send(page, "What does this log say?", files=[str(log)])
    expect(bot(page, "Attached build.txt")).to_be_visible()
    expect(bot(page, "Could not attach")).to_have_count(0)
    wait_turn_done(page)
