"""A conversation evicted between being opened and being claimed for a turn still runs the turn
as itself: under its own id and owner, on a live agent, and the turn is stored.

Real parts: the registry, keeper and page handlers of one app process over a real conversation
store, real CodeAgents on the in-process executor, a scripted model. The window between
`registry.open` and the turn's claim is held open by a gate on the claim.
"""

from __future__ import annotations

import threading

import pytest

from agents.loop.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel
from smolui.sessions import Session, SessionRegistry
from tests.smolui.test_eviction_keeps_data import App, stored_texts, texts
from tests.waiting import wait_for


@pytest.fixture
def app(store_url, tmp_path):
    app = App(store_url, tmp_path / "data", cap=1)
    yield app
    app.close()


def gate_first_claim(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """Hold the first `Session.begin_turn` (the turn's claim) until the test releases it."""
    reached, gate = threading.Event(), threading.Event()
    claim = Session.begin_turn

    def gated(session: Session, wait: float = 0.0) -> bool:
        if not reached.is_set():
            reached.set()
            gate.wait(60)
        return claim(session, wait)

    monkeypatch.setattr(Session, "begin_turn", gated)
    return reached, gate


def test_a_conversation_evicted_before_its_claim_runs_the_turn_as_itself(app, monkeypatch):
    conversation_id, chat, state, _ = app.pages.load(None, page="p1")
    reached, gate = gate_first_claim(monkeypatch)
    result: list = []
    turn = threading.Thread(
        target=lambda: result.append(
            app.send("My favourite colour is teal.", conversation_id, chat)
        )
    )
    turn.start()
    try:
        wait_for(reached.is_set, "the turn opened its conversation and reached its claim")
        app.pages.load(None, page="p2")  # another visitor: the cap of one evicts ours
        assert app.registry.get(conversation_id) is None, "the window let the cap evict it"
    finally:
        gate.set()
        turn.join(60)
    assert not turn.is_alive() and result, "the turn ended"
    shown = "\n".join(texts(result[0]))
    assert "Noted teal." in shown, f"the turn ran on a live agent: {shown}"
    assert "closed" not in shown.lower()
    assert app.registry.get(conversation_id) is not None, "it is live again under its own id"
    assert "Noted teal." in stored_texts(app, state["owner"], conversation_id), "and stored"


def test_a_conversation_deleted_before_its_claim_runs_the_turn_for_the_same_owner(tmp_path):
    def agent() -> CodeAgent:
        return CodeAgent([], ScriptedModel([]), executor_type="local", verbosity_level=-1)

    registry = SessionRegistry(agent, tmp_path / "uploads")
    opened = registry.open(None, page="p1")
    opened.owner = "alice"
    registry.evict(opened.id, "deleted")  # nothing remembers it: it comes back as a new one
    session, claimed = registry.claim(opened, "p1")
    assert claimed and session is not opened and registry.get(session.id) is session
    assert session.owner == "alice", "the turn is kept for its owner, never for nobody"
    session.end_turn()
