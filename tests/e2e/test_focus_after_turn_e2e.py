"""The keyboard stays in the message box from one turn to the next: a message sent from the
box (Enter) gets the focus back there once its answer is done, and the box is disabled while
the turn runs. A person who moved the focus elsewhere during the turn keeps it there."""

from __future__ import annotations

import threading

import pytest
from playwright.sync_api import expect

from agents.models.scripted import ScriptedReply
from tests.e2e.keyboard import is_focused, tab_to, type_message
from tests.e2e.pages import MESSAGE_BOX, bot, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.waiting import GENEROUS_S

pytestmark = pytest.mark.e2e


def held_script(reached: threading.Event, gate: threading.Event) -> list:
    """Answers about plums only once the test opens `gate`; about pears at once."""
    return by_task(
        {
            "plums": [
                ScriptedReply(
                    "<code>\nfinal_answer('All about plums.')\n</code>", reached=reached, gate=gate
                )
            ],
            "pears": ["<code>\nfinal_answer('All about pears.')\n</code>"],
        }
    )


@pytest.mark.parametrize("by", ["enter", "send-button"])
def test_the_box_has_the_focus_again_once_the_answer_is_done(app, open_page, by):
    reached, gate = threading.Event(), threading.Event()
    app.model_options = {"loop": True}
    app.script = lambda: held_script(reached, gate)
    try:
        page = open_page(app.url)
        box = page.locator(MESSAGE_BOX)
        if by == "enter":
            type_message(page, "Tell me about plums.")  # from the box, by the keyboard
        else:  # typed, then sent with the box's own button
            box.fill("Tell me about plums.")
            page.locator("#message .submit-button").click()
        assert reached.wait(GENEROUS_S), "the turn called the model"
        expect(box).to_be_disabled()  # the turn runs: the box took no focus back yet
        gate.set()
        expect(bot(page, "All about plums.")).to_be_visible()
        wait_turn_done(page)
        expect(box).to_be_focused()
        type_message(page, "Tell me about pears.")  # the next message goes from the keyboard
        expect(bot(page, "All about pears.")).to_be_visible()
        wait_turn_done(page, 2)
        expect(box).to_be_focused()
    finally:  # never leave the app's agent held for the next test
        gate.set()


def test_a_control_the_person_moved_to_during_the_turn_keeps_the_focus(app, open_page):
    reached, gate = threading.Event(), threading.Event()
    app.model_options = {"loop": True}
    app.script = lambda: held_script(reached, gate)
    try:
        page = open_page(app.url)
        box, clear = page.locator(MESSAGE_BOX), page.locator(".clear-button")
        type_message(page, "Tell me about plums.")
        assert reached.wait(GENEROUS_S), "the turn called the model"
        expect(box).to_be_disabled()
        tab_to(page, clear)  # the person goes on to another control while the turn runs
        gate.set()
        expect(bot(page, "All about plums.")).to_be_visible()
        wait_turn_done(page)
        # The page script hands the focus back as the box is enabled (before the page is
        # seen enabled here): a wrong move would already show.
        expect(box).not_to_be_focused()
        assert is_focused(page, clear), "the control the person moved to keeps the focus"
    finally:
        gate.set()
