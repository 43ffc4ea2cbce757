"""A turn that waits for the person's approval, as the person meets it elsewhere on the page:
its step stops spinning and says it waits, the side panel says it waits for their approval
(not "answering"), and a message sent in another conversation meanwhile is refused with the
waiting conversation's title and what to do. Real store and agents, as in
`test_approvals_turn.py`; the queue holds one turn per person, as the app's default."""

from __future__ import annotations

import threading

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


def test_pages_see_the_step_paused_while_the_store_keeps_it_as_it_runs():
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
    # A restart settles a kept running step; a paused one would stay "waiting" for ever.
    assert kept == [[step, card]]
    shown.hold([])
    assert published[-1] == [step], "answered: the step runs (and spins) again"


def test_another_conversation_is_refused_naming_the_one_that_waits_for_approval(make_app):
    app = make_app([PROPOSED])
    app.chat.admission = TurnAdmission(queue=TurnQueue(slots=4, user_slots=1))
    first, chats, thread = app.start(QUESTION)
    pending = waiting_for(app, first)
    owner = app.registry.get(first).owner
    title = app.keeper.find(owner, first).title
    second, chat, _, _ = app.pages.new_chat({"owner": owner, "current": first}, page="p1")
    assert second != first

    refused = texts(app.send("And eight times nine?", second, chat))
    assert f"“{title}” is waiting for your approval" in refused, refused
    assert "run or skip the action shown there, or stop that turn" in refused
    assert "Nothing was run." in refused

    assert app.approvals.answer(first, pending.id, "run").ok
    thread.join(60)
    assert "The answer is 42." in texts(chats[-1])
    # The slot is free again: the same message now runs (up to its own action, which waits).
    app.replies = ["<code>\nfinal_answer('72')\n</code>"]
    sent = threading.Thread(target=app.send, args=("And eight times nine?", second, chat))
    sent.start()
    asks = waiting_for(app, second)
    assert app.approvals.answer(second, asks.id, "run").ok
    sent.join(60)
    assert not sent.is_alive()
