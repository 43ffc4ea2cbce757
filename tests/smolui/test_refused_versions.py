"""A Retry or an edit refused before it runs (a per-user limit) leaves no version: the
answer shown stays, the refusal is told once, and the agent remembers the branch shown.
Real store (SQLite file, real PostgreSQL), real limits and queue, scripted model."""

from __future__ import annotations

import pytest

from smolui.auth import Identity
from smolui.conversations.branches import active_path_messages
from smolui.render.messages import PassingNotice
from smolui.turns.admission import TurnAdmission
from smolui.turns.limits import Limits, UsageLimiter
from smolui.turns.pending import PendingTurn
from smolui.turns.queue import TurnQueue
from smolui.turns.usage_ledger import MemoryLedger
from tests.smolui.test_message_branches import App, answers, tasks, two_turns


@pytest.fixture
def app(store_url, tmp_path):
    app = App(store_url, tmp_path / "data")
    yield app
    app.close()


def limited(app: App) -> None:
    """From now on one turn an hour, on a clock that stays inside one hour."""
    limiter = UsageLimiter(Limits(turns_per_hour=1), MemoryLedger(), clock=lambda: 1_800_000_000)
    app.chat.admission = TurnAdmission(None, limiter)


def refused_run(app: App, result, conversation_id: str) -> tuple[list, PassingNotice]:
    """Run a refused action's turn: the chat it ends with, without the refusal, and the
    refusal (told once, as a toast)."""
    updates = list(app.chat.run_turn(result.pending, result.chat, conversation_id))
    chat = updates[-1][0]
    assert isinstance(chat[-1], PassingNotice), f"no refusal told: {chat[-1]}"
    return chat[:-1], chat[-1]


def stored(app: App, conversation_id: str) -> list:
    owner = app.keeper.store.owner_of(conversation_id)
    return active_path_messages(app.keeper, owner, conversation_id)


def test_a_refused_retry_keeps_the_answer_and_makes_no_version(app):
    conversation_id, chat = two_turns(app)
    limited(app)
    chat = app.send("mint", conversation_id, chat)  # spends the hour's turn
    assert answers(chat)[-1] == "saw tomato basil mint"
    before = stored(app, conversation_id)
    result = app.actions.retry(chat, conversation_id)
    assert result.pending is not None
    shown, refusal = refused_run(app, result, conversation_id)
    assert "turn" in refusal.text.lower(), refusal.text
    assert shown == before, "the answer shown before the Retry is shown again"
    assert stored(app, conversation_id) == before
    assert app.actions.versions(conversation_id) == [], "a refused Retry left a version"
    assert tasks(app, conversation_id) == ["tomato", "basil", "mint"], "the agent is as it was"


@pytest.mark.parametrize("edited", ["tomato", "basil"])
def test_a_refused_edit_keeps_the_branch_and_the_agent_follows_it(app, edited):
    conversation_id, chat = two_turns(app)
    before = stored(app, conversation_id)
    limited(app)
    app.send("mint", conversation_id, list(chat))  # spends the hour's turn
    app.actions.undo(app.chat._stored_chat(app.registry.get(conversation_id)), conversation_id)
    assert stored(app, conversation_id) == before
    index = next(i for i, m in enumerate(before) if m.get("content") == edited)
    result = app.actions.edit(before, conversation_id, index, "pepper", edited)
    assert result.notice is None and result.pending is not None
    shown, _ = refused_run(app, result, conversation_id)
    assert shown == before
    assert stored(app, conversation_id) == before
    assert app.actions.versions(conversation_id) == [], "a refused edit left a branch"
    app.chat.admission = None  # the next hour
    chat = app.send("mint", conversation_id, shown)
    assert answers(chat)[-1] == "saw tomato basil mint", "the agent forgot the branch shown"


def test_a_refused_message_on_a_branch_with_answers_keeps_every_version(app):
    conversation_id, chat = two_turns(app)
    chat = app.run(app.actions.retry(chat, conversation_id), conversation_id)
    [version] = app.actions.versions(conversation_id)
    assert (version["current"], version["total"]) == (2, 2)
    limited(app)
    chat = app.send("mint", conversation_id, chat)  # spends the hour's turn
    chat = app.send("sage", conversation_id, chat)  # refused: kept with the refusal, as ever
    assert not isinstance(chat[-1], PassingNotice) and "turn" in chat[-1]["content"].lower()
    assert [m.get("content") for m in stored(app, conversation_id)][-2] == "sage"
    [version] = app.actions.versions(conversation_id)
    assert (version["current"], version["total"]) == (2, 2), "the retried answer is kept"


def test_a_retry_refused_while_another_turn_holds_the_users_slot_makes_no_version(app):
    conversation_id, chat = two_turns(app)
    before = stored(app, conversation_id)
    gate = TurnAdmission(None, None, TurnQueue(slots=4, max_waiting=4, user_slots=1))
    owner = app.keeper.store.owner_of(conversation_id)
    # The same person's turn in another conversation runs now (`--user-concurrency 1`).
    running = gate.enter(Identity(), owner, PendingTurn.message("elsewhere"), "another")
    assert not isinstance(running, str)
    app.chat.admission = gate
    try:
        result = app.actions.retry(chat, conversation_id)
        shown, _ = refused_run(app, result, conversation_id)
    finally:
        running.release()
    assert shown == before and stored(app, conversation_id) == before
    assert app.actions.versions(conversation_id) == []
