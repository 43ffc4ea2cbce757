"""The page that answered an action after a restart follows the resumed turn only while it
shows that turn's conversation, as a page reopened mid-turn does (the page's own follow,
chained after the answer): once the person opens another conversation, the turn goes on (and
is saved) but nothing of it reaches the page, and the page's follow ends, so the conversation
it opened can start its own turns.

Real parts: an app process killed with SIGKILL while its tool call waits, a second app on
the same store (SQLite file, real PostgreSQL), the page's `PageViews` and its follow handler
(`smolui.ui.wiring.adapters`); a gate holds the resumed turn's next model call open.

As a sent message's turn, the page is sent only its window of each update (the messages it
holds back before the window are not sent again), its message box is locked and Stop enabled
while the turn runs, and both come back once it has ended.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace

from agents.models.scripted import ScriptedReply
from smolui.ui.page_views import PageViews
from smolui.ui.wiring import adapters
from tests.smolui.test_approvals_resume import restart, stored, texts
from tests.waiting import wait_for

__all__ = ["restart"]  # the fixture, used by name

ANSWER = "Recorded, and done."


def test_a_resumed_turn_stops_writing_into_a_page_that_opened_another_conversation(restart):
    reached, gate = threading.Event(), threading.Event()
    final = ScriptedReply("", tool_calls=[("final_answer", {"answer": ANSWER})], reached=reached,
                          gate=gate)  # fmt: skip
    app, conversation_id = restart("tool", [final])
    pending = app.approvals.waiting(conversation_id)
    app.long_untouched(pending.id)
    views = PageViews(check_s=0.05)
    views.show("p2", conversation_id)  # the page opened the conversation (a reload)
    follow = adapters(app.chat, app.pages, views=views)["follow"]

    assert app.approvals.answer(conversation_id, pending.id, "run", page="p2").ok
    updates = follow(conversation_id, None, SimpleNamespace(session_hash="p2"))
    next(updates)  # gradio's first update: nothing changes yet
    assert "What is six times seven?" in texts(next(updates)[0]), "the page follows the turn"
    try:
        wait_for(reached.is_set, "the resumed turn asks the model for its next step")
        views.leave("p2")  # the person opens another conversation in the same tab
        views.show("p2", "another-conversation")
    finally:
        gate.set()
    rest = list(updates)  # ends once the page shows the other conversation
    assert not any(ANSWER in texts(chat) for chat, *_ in rest), "it wrote into the other view"
    assert views.wait_quiet("p2"), "nothing writes into the page any more"
    record = wait_for(
        lambda: (r := stored(app, conversation_id)) and r.turn_state == "done" and r,
        "the resumed turn goes on unshown, and is saved",
    )
    assert ANSWER in texts(record.messages)


def test_a_resumed_turn_sends_the_page_only_its_window_and_locks_its_box_meanwhile(restart):
    final = ScriptedReply("", tool_calls=[("final_answer", {"answer": ANSWER})])
    app, conversation_id = restart("tool", [final])
    pending = app.approvals.waiting(conversation_id)
    app.long_untouched(pending.id)
    held_back = stored(app, conversation_id).messages[:1]  # the page holds back the question
    assert "What is six times seven?" in texts(held_back)
    views = PageViews(check_s=0.05)
    views.show("p2", conversation_id)
    follow = adapters(app.chat, app.pages, views=views)["follow"]

    assert app.approvals.answer(conversation_id, pending.id, "run", page="p2").ok
    updates = list(follow(conversation_id, held_back, SimpleNamespace(session_hash="p2")))[1:]
    *running, ended = updates
    assert running, "the page follows the turn"
    for chat, box, stop, _ in running:
        assert "What is six times seven?" not in texts(chat), "the held-back part was sent"
        assert not box.interactive and stop.interactive, "the box is free while the turn runs"
    assert ended[1].interactive and not ended[2].interactive, "the box is free once it ended"
    assert ANSWER in texts(running[-1][0])
    chat = wait_for(
        lambda: (r := stored(app, conversation_id)) and r.turn_state == "done" and r.messages,
        "the resumed turn is saved",
    )
    assert chat[: len(held_back)] == held_back, "the held-back part is the chat's start"
    assert texts(running[-1][0]) == texts(chat[len(held_back) :]), "the window is the rest"
