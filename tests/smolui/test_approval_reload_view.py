"""A page opened on a conversation whose action waits for approval after the app restarted
(or on another replica) shows what the live page showed: the waiting step once, its title
saying it waits, its thought and code once, in the card, and no "interrupted" note (the
card says what to do); once answered, the resumed turn shows that step once.

Real parts: an app process killed with SIGKILL while its action waits, a second app on the
same store (SQLite file, real PostgreSQL); scripted models decide only what agents write.
"""

from __future__ import annotations

from smolui.conversations.interrupted import INTERRUPTED_NOTE
from smolui.render.approval import PAUSED_WHAT, WAITING_TITLE
from tests.smolui.test_approvals_resume import restart, texts

__all__ = ["restart"]  # the fixture, used by name


def titles(chat: list, text: str) -> list[str]:
    found = [str((m.get("metadata") or {}).get("title") or "") for m in chat]
    return [title for title in found if text in title]


def opened(app, conversation_id: str, page: str) -> list:
    owner = app.keeper.store.owner_of(conversation_id)
    _, chat, _, _ = app.pages.load({"owner": owner, "current": conversation_id}, page=page)
    return chat


def test_a_page_opened_after_a_restart_shows_the_waiting_step_once_with_its_card(restart):
    app, conversation_id = restart("code", [])
    chat = opened(app, conversation_id, "p2")
    shown = texts(chat)
    assert titles(chat, "Step 1") == [f"Step 1 · {PAUSED_WHAT}"], "one step, and it waits"
    assert len(titles(chat, WAITING_TITLE)) == 1, "one card"
    assert shown.count("multiply.") == 1, "the thought once, in the card"
    assert shown.count("result = 6 * 7") == 1, "the code once, in the card"
    assert "Thought:" not in shown
    assert INTERRUPTED_NOTE not in shown, "the card, not a note, says what to do"


def test_the_resumed_turn_shows_the_held_step_once(restart):
    app, conversation_id = restart("code", [])
    pending = app.approvals.waiting(conversation_id)
    app.long_untouched(pending.id)
    opened(app, conversation_id, "p2")
    assert app.approvals.answer(conversation_id, pending.id, "run", page="p2").ok
    final = list(app.chat.follow(conversation_id, "p2"))[-1]
    assert "The answer is 42." in texts(final)
    assert len(titles(final, "Step 1")) == 1, titles(final, "Step")
    assert not titles(final, PAUSED_WHAT), "nothing says it still waits"
    assert texts(final).count("result = 6 * 7") == 1
