"""Opening another conversation holds the message box until the page shows it: a message sent
in between ("+ New chat", then Enter at once, on a busy server) went into the conversation
being left. A failed opening gives the box back."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import MESSAGE_BOX, bot, send, wait_turn_done
from tests.e2e.test_chat import by_task

pytestmark = pytest.mark.e2e

PREDICT = "**/gradio_api/run/predict"  # the page's events outside the queue
LISTED = ".conversation-list label"
NOTED = ["<code>\nfinal_answer('Noted.')\n</code>"]


def server_event(page, elem_class: str, event: str) -> int:
    """The `fn_index` of the server side of `event` on the component with `elem_class`, as the
    page's gradio config lists it (other events may be on their way at the same moment)."""
    return page.evaluate(
        """([cls, event]) => {
          const config = window.gradio_config;
          const on = config.components.find((c) => (c.props.elem_classes || []).includes(cls));
          return config.dependencies.find((d) => d.backend_fn
            && d.targets.some(([id, name]) => id === on.id && name === event)).id;
        }""",
        [elem_class, event],
    )


class Hold:
    """Holds the page's requests for one server event until released: sent on, or failed."""

    def __init__(self, fn_index: int) -> None:
        self.fn_index = fn_index
        self.held: list = []

    def __call__(self, route) -> None:
        if json.loads(route.request.post_data or "{}").get("fn_index") == self.fn_index:
            self.held.append(route)
        else:
            route.continue_()

    def release(self, fail: bool = False) -> None:
        while self.held:
            route = self.held.pop()
            if fail:
                route.fulfill(status=500, json={"error": "The server failed."})
            else:
                route.continue_()


def first_turn(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"April": NOTED, "March": NOTED})
    page = open_page(app.url)
    send(page, "April totals")
    wait_turn_done(page)
    return page


def test_new_chat_holds_the_box_until_it_is_shown(app, open_page):
    page = first_turn(app, open_page)
    hold = Hold(server_event(page, "new-chat-button", "click"))
    page.route(PREDICT, hold)
    box = page.locator(MESSAGE_BOX)
    page.get_by_role("button", name="+ New chat").click()
    expect(box).to_be_disabled()  # at once, while the server's answer is held
    expect(bot(page, "Noted.")).to_be_visible()  # the page still shows the chat it leaves
    assert len(hold.held) == 1, "the new chat's request was held"
    hold.release()
    expect(bot(page, "Noted.")).to_have_count(0)
    expect(box).to_be_enabled()
    send(page, "March totals")
    wait_turn_done(page)
    expect(page.locator(LISTED)).to_have_count(2)
    for title in ("April totals", "March totals"):
        expect(page.locator(LISTED, has_text=title)).to_have_count(1)


def test_a_conversation_picked_holds_the_box_and_a_failed_opening_gives_it_back(app, open_page):
    page = first_turn(app, open_page)
    page.get_by_role("button", name="+ New chat").click()
    expect(bot(page, "Noted.")).to_have_count(0)
    send(page, "March totals")
    wait_turn_done(page)
    box = page.locator(MESSAGE_BOX)
    pick = Hold(server_event(page, "conversation-list", "input"))
    page.route(PREDICT, pick)
    page.locator(LISTED, has_text="April totals").click()
    expect(box).to_be_disabled()
    assert len(pick.held) == 1, "the pick's request was held"
    pick.release()
    expect(box).to_be_enabled()
    expect(bot(page, "Noted.")).to_be_visible()
    page.unroute(PREDICT)
    new = Hold(server_event(page, "new-chat-button", "click"))
    page.route(PREDICT, new)
    page.get_by_role("button", name="+ New chat").click()
    expect(box).to_be_disabled()
    assert len(new.held) == 1, "the new chat's request was held"
    new.release(fail=True)
    expect(box).to_be_enabled()  # nothing opened: the box is back for the chat still shown
    expect(bot(page, "Noted.")).to_be_visible()
    send(page, "April totals again")
    wait_turn_done(page, turns=2)
    expect(page.locator(LISTED)).to_have_count(2)
