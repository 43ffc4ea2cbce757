"""Stop pressed after the page showed a message but before its turn reached the server."""

from __future__ import annotations

from agents.models.scripted import ScriptedModel
from smolui.turns.early_stop import StopsBeforeStart
from smolui.turns.pending import PendingTurn
from tests.smolui.test_handlers import ANSWER, make_app, texts


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def held(text: str, token: str) -> PendingTurn:
    return PendingTurn.message(text, []).held(token)


def test_a_stop_is_kept_only_for_a_turn_on_its_way():
    stops = StopsBeforeStart()
    first = held("one", "t1")
    assert not stops.stop("c1"), "nothing was shown: nothing to stop"
    stops.expect("c1", first)
    assert stops.stop("c1")
    assert stops.arrived("c1", first), "the turn learns it was stopped"
    assert not stops.stop("c1"), "once arrived, the turn is stopped as a running one"
    second = held("two", "t2")
    stops.expect("c1", second)
    assert not stops.arrived("c1", second), "a later message is not stopped by an earlier Stop"


def test_retries_and_messages_without_a_conversation_are_not_tracked():
    stops = StopsBeforeStart()
    stops.expect(None, held("one", "t1"))
    stops.expect("c1", PendingTurn.message("no token", []))
    assert not stops.stop("c1") and not stops.stop(None)


def test_a_turn_that_never_arrives_is_forgotten():
    clock = Clock()
    stops = StopsBeforeStart(keep_s=10.0, clock=clock)
    stops.expect("c1", held("one", "t1"))
    assert stops.stop("c1")
    clock.now = 11.0
    stops.expect("c2", held("two", "t2"))  # any later message sweeps the old ones
    assert not stops.stop("c1")
    assert not stops.arrived("c1", held("one", "t1"))


def test_stop_before_the_turn_arrives_keeps_the_message_and_runs_nothing(tmp_path):
    handlers, registry = make_app(tmp_path, lambda: [ANSWER])
    conversation_id = registry.open(None).id
    shown, pending = handlers.echo({"text": "never mind", "files": []}, [], conversation_id)
    assert handlers.stop(conversation_id), "the shown message's turn counts as running"
    chat, same_id = list(handlers.run_turn(pending, shown, conversation_id))[-1]
    assert same_id == conversation_id
    assert texts(chat)[0] == "never mind" and any("Stopped." in t for t in texts(chat))
    session = registry.get(conversation_id)
    assert not session.busy, "the conversation is free again"
    model = session.agent.model
    assert isinstance(model, ScriptedModel) and model.calls == []
    # The next message runs as usual: the Stop was for the one before.
    shown, pending = handlers.echo({"text": "now", "files": []}, chat, conversation_id)
    final, _ = list(handlers.run_turn(pending, shown, conversation_id))[-1]
    assert "done: 42" in texts(final) and len(model.calls) == 1


def test_stop_with_nothing_shown_or_running_says_there_was_nothing(tmp_path):
    handlers, registry = make_app(tmp_path, lambda: [ANSWER])
    conversation_id = registry.open(None).id
    assert not handlers.stop(conversation_id)
    assert not handlers.stop("no-such-conversation")


def test_turns_on_their_way_are_capped_oldest_first(monkeypatch):
    monkeypatch.setattr("smolui.turns.early_stop.MAX_COMING", 3)
    stops = StopsBeforeStart()
    for n in range(5):
        stops.expect(f"c{n}", held(str(n), f"t{n}"))
    assert [stops.stop(f"c{n}") for n in range(5)] == [False, False, True, True, True]
