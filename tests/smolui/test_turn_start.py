"""The user's message is kept from the moment its turn starts, before anything slow happens.

A turn may wait for its agent to be built, for its uploads to be read or for the model's
first answer. A reload, a restart or another replica in those moments must still show the
message. Real parts: a SQLite file and the real PostgreSQL server, real CodeAgents on the
local executor; the model is scripted and the agent's construction is held by an event.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from agents.loop.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel
from smolui.handlers.conversations import INTERRUPTED_NOTE
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from tests.smolui.app_process import AppProcess
from tests.smolui.stale_turn import age_running_state
from tests.waiting import GENEROUS_S, wait_for


class App(AppProcess):
    """One app process whose agents are built only once `gate` is set."""

    def __init__(self, url: str, data: Path, gate: threading.Event):
        self.gate = gate
        super().__init__(SessionRegistry(self._agent, data / "uploads"), open_store(data, url))

    def _agent(self) -> CodeAgent:
        assert self.gate.wait(GENEROUS_S), "the test never let the agent be built"
        model = ScriptedModel(["<code>\nfinal_answer('Here it is.')\n</code>"], loop=True)
        return CodeAgent([], model, executor_type="local", verbosity_level=-1)

    def close(self) -> None:
        self.gate.set()
        super().close()


def texts(chat: list) -> list[str]:
    return [m["content"] for m in chat if isinstance(m.get("content"), str)]


@pytest.fixture
def data(tmp_path) -> Path:
    return tmp_path / "data"


def test_the_message_is_kept_before_the_agent_or_the_model_has_done_anything(store_url, data):
    first = App(store_url, data, threading.Event())
    conversation_id, chat, state, _ = first.pages.load(None, page="p1")
    shown, pending = first.chat.echo({"text": "What is the soil pH?", "files": []}, chat)
    turn = first.chat.run_turn(pending, shown, conversation_id, "p1")
    next(turn)  # the turn started; its agent is still being built
    stored = first.keeper.find(state["owner"], conversation_id)
    assert "What is the soil pH?" in texts(stored.messages) and stored.turn_state == "running"

    turn.close()  # the page reloads
    first.pages.page_closed("p1")
    again, so_far, _, _ = first.pages.load(state, page="p2")
    assert again == conversation_id and "What is the soil pH?" in texts(so_far)

    # The server dies now (kill -9: nothing more is written); another one opens the data.
    age_running_state(first.keeper.store, conversation_id)  # on PostgreSQL: long dead
    second = App(store_url, data, threading.Event())
    _, restored, _, _ = second.pages.load(state, page="p3")
    assert "What is the soil pH?" in texts(restored)
    assert any(INTERRUPTED_NOTE in line for line in texts(restored))
    second.close()

    first.gate.set()  # the first server's turn goes on and ends saved
    followed = list(first.chat.follow(conversation_id, "p2"))
    assert "Here it is." in texts(followed[-1])
    wait_for(
        lambda: first.keeper.find(state["owner"], conversation_id).turn_state == "done",
        "the turn is saved as done",
    )
    assert "Here it is." in texts(first.keeper.find(state["owner"], conversation_id).messages)
    first.close()


def test_a_refused_turn_keeps_the_message_with_the_reason_and_stops_followers(store_url, data):
    from smolui.auth import Identity
    from smolui.turns.admission import TurnAdmission
    from smolui.turns.limits import Limits, UsageLimiter
    from smolui.turns.queue import TurnQueue
    from smolui.turns.usage_ledger import MemoryLedger

    app = App(store_url, data, threading.Event())
    app.gate.set()
    limiter = UsageLimiter(Limits(turns_per_hour=1), MemoryLedger())
    app.chat.admission = TurnAdmission(None, limiter, TurnQueue(slots=2, max_waiting=2))
    alice = Identity(provider="hf", name="alice", client="10.0.0.1")
    conversation_id, chat, state, _ = app.pages.load(None, page="p1")
    shown, pending = app.chat.echo({"text": "Plan my beds.", "files": []}, chat)
    chat = list(app.chat.run_turn(pending, shown, conversation_id, "p1", alice))[-1][0]
    shown, pending = app.chat.echo({"text": "And the next ones?", "files": []}, chat)
    refused = list(app.chat.run_turn(pending, shown, conversation_id, "p1", alice))[-1][0]
    assert "Limit reached" in texts(refused)[-1]
    session = app.registry.get(conversation_id)
    assert session.live_turn.done and not session.busy, "followers stop, the claim is freed"
    stored = app.keeper.find(state["owner"], conversation_id)
    assert texts(stored.messages)[-2:] == texts(refused)[-2:]
    assert "And the next ones?" in texts(stored.messages) and stored.turn_state == "idle"
    app.close()
