"""An answer that resumes a turn after a restart takes a turn slot as any turn does: while
the person's other turn holds their one slot (the app's default), the answer runs nothing,
says why, and the action waits to be answered again; once that turn has ended the same
answer resumes the turn. When every slot of the server is busy it waits its place in line,
saying so, and runs once a slot frees. (Every code block asks here, the other turn's too.)

Real parts: an app process killed with SIGKILL while its action waits, a second app on the
same store (SQLite file, real PostgreSQL) with the app's turn queue; scripted models decide
only what agents write, a gate holds the other turn's model call open.
"""

from __future__ import annotations

import threading

from agents.models.scripted import ScriptedReply
from smolui.turns.admission import TurnAdmission
from smolui.turns.queue import TurnQueue
from tests.smolui.test_approvals_resume import restart, stored, texts
from tests.waiting import wait_for

__all__ = ["restart"]  # the fixture, used by name


def test_an_answer_after_a_restart_does_not_run_beside_the_persons_other_turn(restart):
    reached, gate = threading.Event(), threading.Event()
    other_reply = ScriptedReply("<code>\nfinal_answer('72')\n</code>", reached=reached, gate=gate)
    app, conversation_id = restart("code", [other_reply])
    app.chat.admission = TurnAdmission(queue=TurnQueue(slots=4, user_slots=1))
    pending = app.approvals.waiting(conversation_id)
    app.long_untouched(pending.id)

    # The person's turn in another conversation runs, its model call held open.
    owner = app.keeper.store.owner_of(conversation_id)
    state = {"owner": owner, "current": conversation_id}
    other, chat, _, _ = app.pages.new_chat(state, page="p1")
    said: list = []
    sent = threading.Thread(target=lambda: said.append(app.send("And 8 x 9?", other, chat)))
    sent.start()
    try:
        wait_for(lambda: reached.is_set() or said, "the other turn runs")
        assert reached.is_set(), f"the other turn was refused: {said}"
        busy = app.approvals.answer(conversation_id, pending.id, "run", page="p2")
        assert not busy.ok, "the resumed turn ran beside the person's other turn"
        assert "Limit reached" in busy.message and busy.message.endswith("Nothing ran.")
        assert "“And 8 x 9?” is still running" in busy.message, "it names what holds the slot"
        assert busy.message.endswith("Then answer again. Nothing ran."), "not sent again"
        assert app.approvals.waiting(conversation_id).id == pending.id, "it waits again"
        record = stored(app, conversation_id)
        assert "The answer is 42." not in texts(record.messages), "nothing ran"
    finally:
        gate.set()
    asks = wait_for(lambda: app.approvals.waiting(other), "the other turn's code asks too")
    assert app.approvals.answer(other, asks.id, "run").ok
    sent.join(60)
    assert "72" in texts(said[-1])

    assert app.approvals.answer(conversation_id, pending.id, "run", page="p2").ok
    final = list(app.chat.follow(conversation_id, "p2"))[-1]
    assert "The answer is 42." in texts(final)


def test_an_answer_after_a_restart_waits_its_place_when_every_slot_is_busy(restart):
    reached, gate = threading.Event(), threading.Event()
    other_reply = ScriptedReply("<code>\nfinal_answer('72')\n</code>", reached=reached, gate=gate)
    app, conversation_id = restart("code", [other_reply])
    app.chat.admission = TurnAdmission(queue=TurnQueue(slots=1, user_slots=1))
    pending = app.approvals.waiting(conversation_id)
    app.long_untouched(pending.id)

    # Someone else's turn holds the server's one slot, its model call held open.
    other, chat, _, _ = app.pages.load(None, page="p9")
    said: list = []
    sent = threading.Thread(target=lambda: said.append(app.send("And 8 x 9?", other, chat)))
    sent.start()
    try:
        wait_for(lambda: reached.is_set() or said, "the other person's turn runs")
        assert reached.is_set(), f"the other turn was refused: {said}"
        assert app.approvals.answer(conversation_id, pending.id, "run", page="p2").ok
        updates = app.chat.follow(conversation_id, "p2")
        seen = []
        for shown in updates:  # the page's view until the turn says it waits its place
            seen.append(texts(shown))
            if "You are number 1 of 1 in the queue" in seen[-1]:
                break
        assert "in the queue" in seen[-1], "it says it waits"
        assert not any("The answer is 42." in shown for shown in seen), "nothing ran meanwhile"
    finally:
        gate.set()  # the other turn's code asks in turn, giving the slot up while it waits
    assert "The answer is 42." in texts(list(updates)[-1])
    asks = wait_for(lambda: app.approvals.waiting(other), "the other turn's code asks")
    assert app.approvals.answer(other, asks.id, "run").ok
    sent.join(60)
    assert "72" in texts(said[-1])
