"""A reload between the page showing a message and its turn reaching the server: the message
comes back into the message box (with its attachment), and sending it then runs it once."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, wait_turn_done

pytestmark = pytest.mark.e2e
QUEUE_JOIN = "**/gradio_api/queue/join*"


def test_a_message_whose_turn_never_started_is_back_in_the_box_after_a_reload(
    app, new_page, tmp_path: Path
):
    app.script = lambda: ["<code>\nfinal_answer('Got it once.')\n</code>"]
    notes = tmp_path / "notes.txt"
    notes.write_text("Bay three harvested 412 kilograms.\n")
    page = new_page(app.url)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=60_000)
    held: list = []

    def hold(route) -> None:  # the turn's request never leaves the page; later ones do
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route(QUEUE_JOIN, hold)
    with page.expect_request(lambda request: "/queue/join" in request.url):
        send(page, "Summarise my notes, please.", files=[str(notes)])
    user = page.locator(f'{CHAT} [data-testid="user"]', has_text="Summarise my notes")
    expect(user).to_be_visible()  # the page showed it...
    expect(page.locator(MESSAGE_BOX)).to_have_value("")
    assert held, "the turn's request was held back"
    page.reload()  # ...and reloads before the turn reached the server

    box = page.locator(MESSAGE_BOX)
    expect(box).to_have_value("Summarise my notes, please.", timeout=60_000)
    expect(box).to_be_enabled()
    expect(page.locator("#message .thumbnail-wrapper")).to_have_count(1)
    expect(user).to_have_count(0)
    box.press("Enter")
    expect(bot(page, "Got it once.")).to_be_visible()
    wait_turn_done(page)
    expect(user).to_have_count(1)
    assert len(app.agents[-1].model.calls) == 1
    page.reload()  # it was sent: nothing comes back into the box
    expect(user).to_have_count(1, timeout=60_000)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(page.locator(MESSAGE_BOX)).to_have_value("")
