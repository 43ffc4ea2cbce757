"""How long a turn waits for an approval, and who may turn approval off: the app's timeout
ends the wait with nothing run and a clear note, Stop wakes the waiting turn at once (not at
its next look at the store), and a server that requires approval keeps every conversation
asking. Real store and agents, as in `test_approvals_turn.py`."""

from __future__ import annotations

import threading

from sqlalchemy import select

from smolui.approvals.service import NO_LONGER_WAITING, REQUIRED
from smolui.store.approvals import WITHDRAWN, PendingApprovalRow
from smolui.ui.approvals import REQUIRED_LABEL, SWITCH_LABEL, panel_adapters
from tests.smolui.test_approvals_turn import PROPOSED, make_app, texts, waiting_for
from tests.waiting import wait_for

__all__ = ["make_app"]  # the fixture, used by name

HOUR_S = 3600.0  # a waiting turn's look at the store this far apart: only a wake-up is sooner


def test_no_answer_within_the_timeout_ends_the_turn_and_nothing_runs(make_app):
    app = make_app([PROPOSED], timeout_s=0.2)
    conversation_id, chats, thread = app.start("What is six times seven?")
    thread.join(60)
    assert not thread.is_alive(), "the turn ended without an answer"
    final = texts(chats[-1])
    assert "No answer within 0.2 s: nothing ran." in final
    assert "The answer is" not in final
    (model,) = app.models
    assert len(model.calls) == 1, "the model was not asked to go on"
    assert app.approvals.waiting(conversation_id) is None, "the action was withdrawn"
    with app.approvals.store.engine.connect() as connection:
        (approval_id,) = connection.execute(select(PendingApprovalRow.id)).scalars().all()
    late = app.approvals.answer(conversation_id, approval_id, "run")
    assert not late.ok and late.message == NO_LONGER_WAITING


def test_without_a_timeout_the_turn_waits_and_an_answer_after_long_still_runs(make_app):
    app = make_app([PROPOSED], timeout_s=0)
    assert app.approvals.timeout_s is None
    conversation_id, chats, thread = app.start("What is six times seven?")
    pending = waiting_for(app, conversation_id)
    assert app.approvals.answer(conversation_id, pending.id, "run").ok
    thread.join(60)
    assert "The answer is 42." in texts(chats[-1])


def test_stop_wakes_the_waiting_turn_at_once(make_app):
    app = make_app([PROPOSED], poll_s=HOUR_S)
    conversation_id, chats, thread = app.start("What is six times seven?")
    pending = waiting_for(app, conversation_id)
    assert app.chat.stop(conversation_id)
    withdrawn = wait_for(
        lambda: (now := app.approvals.store.get(pending.id)).state == WITHDRAWN and now,
        "the stopped turn stops waiting long before its next look at the store",
    )
    assert withdrawn.decision is None
    thread.join(60)
    assert not thread.is_alive() and "The answer is" not in texts(chats[-1])


def test_an_answer_wakes_the_waiting_turn_at_once_too(make_app):
    app = make_app([PROPOSED], poll_s=HOUR_S)
    conversation_id, chats, thread = app.start("What is six times seven?")
    pending = waiting_for(app, conversation_id)
    assert app.approvals.answer(conversation_id, pending.id, "run").ok
    thread.join(60)
    assert "The answer is 42." in texts(chats[-1])


def test_a_server_that_requires_approval_keeps_every_conversation_asking(make_app):
    app = make_app([PROPOSED], setting="never", required=True)
    conversation_id, _, _, _ = app.pages.load(None, page="p1")
    assert not app.approvals.set_enabled(conversation_id, False)
    assert app.approvals.store.switch(conversation_id).enabled is None, "nothing was stored"
    assert app.approvals.enabled(conversation_id)
    shown, pending = app.chat.echo({"text": "What is six times seven?", "files": []}, [])
    chats: list = []
    thread = threading.Thread(
        target=lambda: chats.extend(app.chat.run_turn(pending, shown, conversation_id)),
        daemon=True,
    )
    thread.start()
    waiting = waiting_for(app, conversation_id)
    assert waiting.kind == "code", "'never' is no answer where approval is required"
    assert app.approvals.answer(conversation_id, waiting.id, "run").ok
    thread.join(60)


def test_the_switch_shows_on_fixed_and_says_why_where_approval_is_required(make_app):
    required = make_app([PROPOSED], setting="never", required=True)
    conversation_id, _, _, _ = required.pages.load(None, page="p1")
    refresh = panel_adapters(required.approvals)["refresh"]
    switch = refresh(conversation_id, None, None)[-3]  # then the conversation, the side panel
    assert switch.value is True and switch.interactive is False
    assert switch.label == REQUIRED_LABEL

    free = make_app([PROPOSED], setting="never")
    other, _, _, _ = free.pages.load(None, page="p2")
    switch = panel_adapters(free.approvals)["refresh"](other, None, None)[-3]
    assert switch.value is False and switch.interactive is True and switch.label == SWITCH_LABEL
    assert "cannot be switched off" in REQUIRED
