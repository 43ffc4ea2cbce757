"""The first moments with the page, in Chromium (issue 31): a new conversation is in "Past
conversations" while its first turn still runs; "+ New chat" (a click, or Enter on it) leaves
the cursor in the message box; letters typed before the box is ready are not lost."""

from __future__ import annotations

import threading

import pytest
from playwright.sync_api import expect

from agents.models.scripted import ScriptedReply
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.waiting import GENEROUS_S, wait_for

pytestmark = pytest.mark.e2e

LIST = ".conversation-list label"


def test_a_new_conversation_is_listed_while_its_first_turn_runs(app, open_page):
    reached, gate = threading.Event(), threading.Event()
    app.model_options = {"loop": True}
    answer = "<code>\nfinal_answer('Your week is planned.')\n</code>"
    app.script = lambda: by_task(
        {
            "week": [ScriptedReply(answer, reached=reached, gate=gate)],
            "Monday": ["<code>\nfinal_answer('Monday is free.')\n</code>"],
        }
    )
    try:
        page = open_page(app.url)
        expect(page.locator(LIST)).to_have_count(0)
        send(page, "Plan my week.")
        assert reached.wait(GENEROUS_S), "the first turn called the model"
        # The turn is held open: the list already names the conversation.
        expect(page.locator(LIST)).to_have_count(1)
        expect(page.locator(LIST)).to_contain_text("Plan my week")
        expect(page.locator(f"{LIST} input")).to_be_checked()  # the one shown
        gate.set()
        expect(bot(page, "Your week is planned.")).to_be_visible()
        wait_turn_done(page)
        send(page, "What about Monday?")  # a later message: still one entry
        expect(bot(page, "Monday is free.")).to_be_visible()
        wait_turn_done(page, 2)
        expect(page.locator(LIST)).to_have_count(1)
    finally:  # never leave the app's agent held for the next test
        gate.set()


@pytest.mark.parametrize("by", ["enter", "click"])
def test_new_chat_leaves_the_cursor_in_the_message_box(app, open_page, by):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "plums": ["<code>\nfinal_answer('All about plums.')\n</code>"],
            "pears": ["<code>\nfinal_answer('All about pears.')\n</code>"],
        }
    )
    page = open_page(app.url)
    send(page, "Tell me about plums.")
    wait_turn_done(page)
    new_chat = page.locator(".new-chat-button")
    if by == "enter":
        new_chat.focus()
        page.keyboard.press("Enter")
    else:
        new_chat.click()
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0)
    box = page.locator(MESSAGE_BOX)
    expect(box).to_be_focused()
    page.keyboard.type("Tell me about pears.")  # straight on, no click in the box
    page.keyboard.press("Enter")
    expect(bot(page, "All about pears.")).to_be_visible()
    wait_turn_done(page)


RUN = "**/gradio_api/run/**"  # gradio's unqueued events: the page's load comes first


def open_held(page, url: str):
    """Opens `url` with the page's first event (it opens the conversation, then enables the
    box) held, so the box is surely not ready yet. Returns what lets it go on."""
    held: list = []

    def hold(route) -> None:
        held.append(route)

    page.route(RUN, hold)
    with page.expect_request(RUN):
        page.goto(url)
    expect(page.locator(".smolui-skip")).to_be_attached()  # the page's script runs

    def release() -> None:
        wait_for(lambda: page.evaluate("true") and held, "the page's first event is held")
        for route in held:
            route.continue_()
        page.unroute(RUN)

    return release


def test_letters_typed_before_the_box_is_ready_land_in_it(app, new_page):
    page = new_page("about:blank")
    release = open_held(page, app.url)
    box = page.locator(MESSAGE_BOX)
    expect(box).to_be_disabled()
    page.keyboard.type("hello world")
    release()
    expect(box).to_be_enabled()
    expect(box).to_have_value("hello world")
    expect(box).to_be_focused()
    page.keyboard.type("!")  # the cursor is at the end of what was typed
    expect(box).to_have_value("hello world!")


def test_a_control_focused_before_the_box_is_ready_keeps_the_keys(app, new_page):
    page = new_page("about:blank")
    release = open_held(page, app.url)
    search = page.locator(".conversation-search input, .conversation-search textarea")
    search.focus()  # the person went somewhere first: the box does not take it
    page.keyboard.type("plums")
    release()
    box = page.locator(MESSAGE_BOX)
    expect(box).to_be_enabled()
    expect(search).to_have_value("plums")
    expect(search).to_be_focused()
    expect(box).to_have_value("")
