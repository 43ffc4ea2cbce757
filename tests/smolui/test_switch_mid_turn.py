"""Another conversation opened in the same page mid-turn, through the real event adapters
(issue 31): the page's turn event ends at once while the turn goes on and is kept, the late
refresh of the turn it left changes nothing, and the controls follow the conversation opened.
Real parts: a SQLite store, CodeAgents with the in-process executor; the model's call for the
inventory is held open by a gate."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gradio as gr
import pytest

from agents.loop.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel, ScriptedReply
from smolui.handlers.chat import HandlerConfig
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from smolui.ui.wiring import adapters
from smolui.uploads import UploadPolicy
from tests.smolui.app_process import AppProcess
from tests.smolui.test_conversations import by_task
from tests.waiting import GENEROUS_S, wait_for


class HeldApp(AppProcess):
    """An app whose inventory answer waits for `gate` (`reached` is set when it waits)."""

    def __init__(self, data: Path):
        self.reached, self.gate = threading.Event(), threading.Event()
        held = ScriptedReply("<code>\nfinal_answer('Inventory: 12 boxes')\n</code>",
                             reached=self.reached, gate=self.gate)  # fmt: skip
        self.rules = {
            "inventory": lambda messages: held,
            "weather": "<code>\nfinal_answer('Sunny all day')\n</code>",
        }
        super().__init__(
            SessionRegistry(self._agent, data / "uploads", media_root=data / "media"),
            open_store(data, f"sqlite:///{data / 'store.db'}", data / "uploads"),
            config=HandlerConfig(policy=UploadPolicy(), max_steps=3, executor_type="local"),
        )

    def _agent(self) -> CodeAgent:
        model = ScriptedModel([self._reply], loop=True)
        return CodeAgent([], model, executor_type="local", verbosity_level=-1)

    def _reply(self, messages: list[dict]) -> Any:
        reply = by_task(self.rules)(messages)
        return reply(messages) if callable(reply) else reply


@pytest.fixture
def app(tmp_path) -> Iterator[HeldApp]:
    app = HeldApp(tmp_path / "data")
    yield app
    app.gate.set()
    wait_for(lambda: not any(s.busy for s in app.registry.sessions()), "the turns end")
    app.close()


PAGE = gr.Request(username=None, session_hash="page-1")
STORE = -5  # where the browser state is in what a load returns (then list, panel, model, box)


def held_turn(app: HeldApp, fn: dict, conversation_id: str) -> tuple[list, threading.Thread]:
    """The page sends the inventory in `conversation_id`, its model call held open; the
    page's turn event is read in a thread, as gradio reads it. Returns the updates the page
    got and the reading thread."""
    shown, pending = app.chat.echo({"text": "Take the inventory", "files": []}, [],
                                   conversation_id)  # fmt: skip
    turn = fn["run"](pending, shown, [], conversation_id, PAGE, None)
    got: list = []
    reader = threading.Thread(target=lambda: got.extend(turn), daemon=True)
    reader.start()
    assert app.reached.wait(GENEROUS_S), "the inventory's model call runs"
    return got, reader


def texts(chat: list) -> str:
    return " ".join(str(message.get("content")) for message in chat)


def test_a_new_chat_ends_the_pages_turn_event_and_the_turn_goes_on(app):
    fn = adapters(app.chat, app.pages)
    loaded = fn["load"]({}, PAGE, None)
    held, store = loaded[0], loaded[STORE]
    got, reader = held_turn(app, fn, held)
    opened = fn["new_chat"](store, "", PAGE, None)
    reader.join(GENEROUS_S)
    assert not reader.is_alive(), "the page's turn event ended while the turn waits"
    new_id, box, stop = opened[0], opened[-2], opened[-1]
    assert new_id != held and box.interactive and not stop.interactive
    assert app.registry.get(held).busy, "the turn still runs on the server"
    shown_ids = {update[1] for update in got}
    assert shown_ids <= {held}, "nothing of it named the new chat"

    # The refresh of the turn the page left comes late, with its id: it changes nothing.
    late = fn["after_turn"](held, store, PAGE, None)
    assert all(update == gr.skip() for update in late)
    assert fn["after_turn"](new_id, store, PAGE, None)[1].value == new_id

    app.gate.set()
    wait_for(lambda: not app.registry.get(held).busy, "the turn ends on the server")
    record = app.keeper.find(store["owner"], held)
    assert "Inventory: 12 boxes" in texts(app.keeper.chat(record)), "kept"
    assert all("Inventory" not in texts(update[0]) for update in got)


def test_picking_another_conversation_then_the_running_one_follows_it(app):
    fn = adapters(app.chat, app.pages)
    loaded = fn["load"]({}, PAGE, None)
    weather, store = loaded[0], loaded[STORE]
    app.send("What is the weather?", weather, [])
    held = fn["new_chat"](store, "", PAGE, None)[0]
    _, reader = held_turn(app, fn, held)

    other = fn["switch"](weather, held, store, "", PAGE, None)
    reader.join(GENEROUS_S)
    assert not reader.is_alive(), "the page's turn event ended"
    assert other[0] == weather and other[-2].interactive and not other[-1].interactive

    back = fn["switch"](held, weather, store, "", PAGE, None)
    assert back[0] == held and not back[-2].interactive and back[-1].interactive
    following = fn["follow"](held, [], PAGE)
    next(following)  # gradio's first update: nothing changes
    assert "Take the inventory" in texts(next(following)[0]), "the turn so far, live"
    app.gate.set()
    updates = list(following)
    assert "Inventory: 12 boxes" in texts(updates[-2][0])
    assert updates[-1][1].interactive and not updates[-1][2].interactive, "ready at its end"


def test_a_new_chat_that_fails_leaves_the_page_on_its_conversation(app, monkeypatch):
    fn = adapters(app.chat, app.pages)
    loaded = fn["load"]({}, PAGE, None)
    shown, store = loaded[0], loaded[STORE]

    def unreachable(*args, **kwargs):
        raise ConnectionError("the database is unreachable")

    monkeypatch.setattr(app.pages, "new_chat", unreachable)
    with pytest.raises(gr.Error):
        fn["new_chat"](store, "", PAGE, None)
    # Its turn's end still refreshes the page (nothing else opened).
    assert fn["after_turn"](shown, store, PAGE, None)[1].value == shown
