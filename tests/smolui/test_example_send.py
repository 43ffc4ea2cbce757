"""A message's way out, through the real event adapters (issue 31): a click on an example is
echoed as a typed message is (a stale one, one before the page has loaded, or one while the
conversation's turn runs sends nothing), and a new conversation's first turn names it for the
list as the turn begins, while a listed conversation's messages do not. Real parts: a
SQLite store, CodeAgents with the in-process executor; the model's call for the inventory is
held open by a gate."""

from __future__ import annotations

import threading
from typing import Any

import gradio as gr
import pytest

from smolui.ui.examples import BUSY, wire_examples
from smolui.ui.layout import build_layout
from smolui.ui.wiring import adapters
from tests.smolui.test_switch_mid_turn import PAGE, STORE, HeldApp, app
from tests.waiting import GENEROUS_S, wait_for

EXAMPLE = {"text": "Take the inventory", "files": []}

__all__ = ["app"]  # the fixture, used by name


def example_echo(live: Any, echo: Any) -> Any:
    """The handler a click on the page's one example (the inventory) runs."""
    layout = build_layout("t", [".txt"], examples=[EXAMPLE])
    wired: list = []
    with layout.demo:
        wire_examples(layout, lambda trigger, handler, message: wired.append(handler), echo, live)
    assert len(wired) == 1, "the examples go out the way a typed message does"
    return wired[0]


def test_a_click_on_an_example_is_echoed_as_the_same_message_typed(app):
    fn = adapters(app.chat, app.pages)
    conversation_id = fn["load"]({}, PAGE, None)[0]
    clicked = example_echo(app.registry.get, fn["echo"])(0, [], [], conversation_id)
    typed = fn["echo"](EXAMPLE, [], [], conversation_id)
    chat, pending = clicked[0], clicked[3]
    assert chat == typed[0] == [{"role": "user", "content": "Take the inventory"}]
    assert pending is not None and pending.text == "Take the inventory"


@pytest.mark.parametrize("index", [1, -1, None, "0"], ids=["past", "negative", "none", "text"])
def test_a_stale_example_sends_nothing_and_says_nothing(app, index):
    fn = adapters(app.chat, app.pages)
    conversation_id = fn["load"]({}, PAGE, None)[0]
    with pytest.raises(gr.Error) as raised:
        example_echo(app.registry.get, fn["echo"])(index, [], [], conversation_id)
    assert not raised.value.visible
    assert len(app.chat.unsent) == 0, "nothing was held for a turn"


def test_an_example_before_the_page_has_its_conversation_sends_nothing(app):
    fn = adapters(app.chat, app.pages)
    with pytest.raises(gr.Error) as raised:
        example_echo(app.registry.get, fn["echo"])(0, [], [], None)
    assert not raised.value.visible


def first_turn(app: HeldApp, fn: dict) -> tuple[str, dict, list, threading.Thread]:
    """A new conversation's first message, its model call held open; the page's turn
    event read in a thread, as gradio reads it. Returns its id, the page's browser state,
    the turn's updates and their reader."""
    loaded = fn["load"]({}, PAGE, None)
    conversation_id, store = loaded[0], loaded[STORE]
    shown, pending = app.chat.echo(EXAMPLE, [], conversation_id)
    turn = fn["send_run"](pending, shown, [], conversation_id, PAGE, None)
    got: list = []
    reader = threading.Thread(target=lambda: got.extend(turn), daemon=True)
    reader.start()
    assert app.reached.wait(GENEROUS_S), "the inventory's model call runs"
    return conversation_id, store, got, reader


def test_the_first_turn_names_its_conversation_for_the_list_while_it_runs(app):
    fn = adapters(app.chat, app.pages)
    conversation_id, store, got, reader = first_turn(app, fn)
    wait_for(lambda: got, "the turn's first update reaches the page")
    assert got[0][2] == conversation_id, "named with the turn's first update"
    listed = fn["listed"](conversation_id, store, PAGE, None)
    assert isinstance(listed, gr.Radio)
    assert [value for _, value in listed.choices] == [conversation_id]
    assert listed.value is None, "the list's value (the one shown) is left as the page has it"
    # Meanwhile the conversation's turn runs: a click on an example sends nothing, and says so.
    with pytest.raises(gr.Error) as raised:
        example_echo(app.registry.get, fn["echo"])(0, [], [], conversation_id)
    assert raised.value.visible and raised.value.message == BUSY
    app.gate.set()
    reader.join(GENEROUS_S)
    assert not reader.is_alive()
    assert all(update[2] == gr.skip() for update in got[1:]), "named once"


def test_the_list_is_not_changed_for_a_conversation_the_page_left(app):
    fn = adapters(app.chat, app.pages)
    conversation_id, store, _, _ = first_turn(app, fn)
    store = fn["new_chat"](store, "", PAGE, None)[STORE]
    assert fn["listed"](conversation_id, store, PAGE, None) == gr.skip()


def test_a_listed_conversations_message_does_not_name_it_again(app):
    fn = adapters(app.chat, app.pages)
    conversation_id, _, got, reader = first_turn(app, fn)
    app.gate.set()
    reader.join(GENEROUS_S)
    weather = {"text": "And the weather?", "files": []}
    shown, pending = app.chat.echo(weather, got[-1][0], conversation_id)
    updates = list(fn["send_run"](pending, shown, [], conversation_id, PAGE, None))
    assert "Sunny all day" in str(updates[-1][0])
    assert all(update[2] == gr.skip() for update in updates), "no look at the store for it"
