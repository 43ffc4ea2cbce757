"""A turn that waits for the person's approval, as the person meets it elsewhere on the page:
its step stops spinning and says it waits, the side panel says it waits for their approval
(not "answering"), and the wait holds no turn slot: a message sent in another conversation
meanwhile runs, and the answered turn takes a slot back (waiting in line, saying so). Real store and agents, as in
`test_approvals_turn.py`; the queue holds one turn per person, as the app's default."""

from __future__ import annotations

import threading

from agents.models.scripted import ScriptedReply
from smolui.approvals.waiting import TurnApprovals
from smolui.render.approval import PAUSED_LOG
from smolui.render.panel import AWAITING_APPROVAL, IDLE, RUNNING
from smolui.turns.admission import TurnAdmission
from smolui.turns.queue import TurnQueue
from tests.smolui.test_approvals_turn import PROPOSED, make_app, texts, waiting_for
from tests.waiting import wait_for

__all__ = ["make_app"]  # the fixture, used by name

QUESTION = "What is six times seven?"


def statuses(chat: list) -> list:
    return [(m.get("metadata") or {}).get("status") for m in chat]


def test_the_waiting_step_stops_spinning_and_the_panel_says_it_waits_for_you(make_app):
    app = make_app([PROPOSED], stream=True)
    conversation_id, chats, thread = app.start(QUESTION)
    pending = waiting_for(app, conversation_id)
    live = app.registry.get(conversation_id).live_turn
    shown = wait_for(lambda: PAUSED_LOG in str(live.shown_to(None)) and live.shown_to(None),
                     "the running step says it waits")  # fmt: skip
    assert "pending" not in statuses(shown), "nothing spins (the page would time it as work)"
    assert f"**Now:** {AWAITING_APPROVAL}" in app.chat.side_panel(conversation_id)

    assert app.approvals.answer(conversation_id, pending.id, "run").ok
    panel = app.chat.side_panel(conversation_id)  # the turn goes on, or has just ended
    assert AWAITING_APPROVAL not in panel and (RUNNING in panel or IDLE in panel)
    thread.join(60)
    assert "The answer is 42." in texts(chats[-1])
    assert f"**Now:** {IDLE}" in app.chat.side_panel(conversation_id)


def test_the_store_keeps_the_waiting_chat_as_pages_see_it_and_again_as_it_changes():
    published, kept = [], []
    shown = TurnApprovals(published.append, kept.append)
    step = {
        "role": "assistant",
        "content": "",
        "metadata": {"title": "Step 1", "status": "pending"},
    }
    card = {"role": "assistant", "content": "run this?", "metadata": {"title": "Waiting"}}
    shown.show([step])
    shown.hold([card])
    assert statuses(published[-1]) == [None, None] and PAUSED_LOG in str(published[-1])
    # A page opened after a restart shows what the live page showed (`paused`, then the card).
    assert kept == [published[-1]]
    code = {"role": "assistant", "content": "x = 1", "metadata": {"parent_id": "s1"}}
    shown.show([step, code])  # the step's rendering may come after the hold
    assert kept[-1] == published[-1] and len(kept) == 2
    shown.show([step, code])  # nothing changed: nothing written
    assert len(kept) == 2
    shown.hold([])
    assert published[-1] == [step, code], "answered: the step runs (and spins) again"
    shown.show([step])
    assert len(kept) == 2, "nothing is kept while no action waits"


def test_a_turn_waiting_for_approval_locks_nobody_out_and_goes_on_once_answered(make_app):
    app = make_app([PROPOSED])
    app.chat.admission = TurnAdmission(queue=TurnQueue(slots=4, user_slots=1))
    first, chats, thread = app.start(QUESTION)
    pending = waiting_for(app, first)
    app.replies = ["<code>\nfinal_answer('72')\n</code>"]  # the other conversation's agent
    owner = app.registry.get(first).owner
    second, chat, _, _ = app.pages.new_chat({"owner": owner, "current": first}, page="p1")
    assert second != first

    # The waiting turn gave its slot up: a message in another conversation runs (up to its
    # own action, which waits too) instead of being refused.
    sent = threading.Thread(target=app.send, args=("And eight times nine?", second, chat))
    sent.start()
    asks = waiting_for(app, second)
    assert app.approvals.answer(second, asks.id, "run").ok
    sent.join(60)
    assert not sent.is_alive()

    assert app.approvals.answer(first, pending.id, "run").ok
    thread.join(60)
    assert "The answer is 42." in texts(chats[-1])


def test_an_answered_turn_waits_in_line_for_the_persons_other_turn_and_says_so(make_app):
    app = make_app([PROPOSED])
    app.chat.admission = TurnAdmission(queue=TurnQueue(slots=4, user_slots=1))
    first, chats, thread = app.start(QUESTION)
    pending = waiting_for(app, first)
    # The other conversation's turn runs, its model call held open by the test.
    reached, gate = threading.Event(), threading.Event()
    app.replies = [ScriptedReply("<code>\nfinal_answer('72')\n</code>", reached=reached,
                                 gate=gate)]  # fmt: skip
    owner = app.registry.get(first).owner
    second, chat, _, _ = app.pages.new_chat({"owner": owner, "current": first}, page="p1")
    said: list = []
    sent = threading.Thread(
        target=lambda: said.append(app.send("And eight times nine?", second, chat))
    )
    sent.start()
    wait_for(lambda: reached.is_set() or said, "the other turn runs or is refused")
    assert reached.is_set(), f"refused while the first waits for approval: {said}"

    assert app.approvals.answer(first, pending.id, "run").ok
    live = app.registry.get(first).live_turn
    wait_for(lambda: "goes on as soon as a turn slot is free" in str(live.shown_to(None)),
             "the answered turn says it waits for a slot")  # fmt: skip
    assert not any("The answer is 42." in texts(c) for c in chats), "nothing ran meanwhile"

    gate.set()  # the other turn reaches its own action and steps aside in turn
    thread.join(60)
    assert "The answer is 42." in texts(chats[-1])
    asks = waiting_for(app, second)
    assert app.approvals.answer(second, asks.id, "run").ok
    sent.join(60)
    assert not sent.is_alive()
