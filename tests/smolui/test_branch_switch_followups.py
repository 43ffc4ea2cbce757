"""What follows a switch between branches: the title follows the first message shown (a
title the person chose stays), and the next turn, a Retry or a message, gets no "reopened
from storage" notice (nothing was reopened; the model is still told its variables are gone).
Real store (SQLite file), real CodeAgent with its in-process executor, scripted model."""

from __future__ import annotations

import pytest

from smolui.conversations.followed import FollowedBranches
from smolui.handlers.chat import RESUMED_NOTICE
from tests.smolui.test_message_branches import App, answers, two_turns


@pytest.fixture
def app(tmp_path):
    app = App(f"sqlite:///{tmp_path / 'store.db'}", tmp_path / "data")
    yield app
    app.close()


def titles(app: App, conversation_id: str) -> list[str]:
    owner = app.keeper.store.owner_of(conversation_id)
    return [summary.title for summary in app.keeper.list(owner)]


def notices(chat: list) -> str:
    return "\n".join(str(m.get("content")) for m in chat if m.get("role") == "assistant")


def edited_first(app: App) -> tuple[str, list]:
    """Two turns ("tomato", "basil"), then the first message edited to "pepper" and answered."""
    conversation_id, chat = two_turns(app)
    edited = app.actions.edit(chat, conversation_id, 0, "pepper", "tomato")
    return conversation_id, app.run(edited, conversation_id)


def test_the_title_follows_the_first_message_of_the_branch_shown(app):
    conversation_id, chat = edited_first(app)
    assert titles(app, conversation_id) == ["pepper"]
    back = app.actions.switch(chat, conversation_id, 0, -1)
    assert answers(back.chat) == ["saw tomato", "saw tomato basil"]
    assert titles(app, conversation_id) == ["tomato"], "the title of the branch shown"
    ahead = app.actions.switch(back.chat, conversation_id, 0, 1)
    assert titles(app, conversation_id) == ["pepper"]
    owner = app.keeper.store.owner_of(conversation_id)
    app.keeper.rename(owner, conversation_id, "My garden")
    app.actions.switch(ahead.chat, conversation_id, 0, -1)
    assert titles(app, conversation_id) == ["My garden"], "a title the person chose stays"


def test_a_switch_of_a_later_message_keeps_the_title(app):
    conversation_id, chat = two_turns(app)
    basil = next(i for i, m in enumerate(chat) if m.get("content") == "basil")
    edited = app.actions.edit(chat, conversation_id, basil, "mint", "basil")
    chat = app.run(edited, conversation_id)
    app.actions.switch(chat, conversation_id, basil, -1)
    assert titles(app, conversation_id) == ["tomato"]


def test_a_retry_after_a_switch_has_no_reopened_notice(app):
    conversation_id, chat = edited_first(app)
    back = app.actions.switch(chat, conversation_id, 0, -1)
    retried = app.actions.retry(back.chat, conversation_id)
    assert retried.pending is not None
    chat = app.run(retried, conversation_id)
    assert RESUMED_NOTICE not in notices(chat)
    # The agent was rebuilt from the branch shown: it remembers that branch's turns.
    assert answers(chat)[-1] == "saw tomato basil"


def test_a_message_after_a_switch_has_no_notice_but_a_real_reopen_does(app):
    conversation_id, chat = edited_first(app)
    back = app.actions.switch(chat, conversation_id, 0, -1)
    chat = app.send("mint", conversation_id, back.chat)
    assert answers(chat)[-1] == "saw tomato basil mint"
    assert RESUMED_NOTICE not in notices(chat)
    app.registry.close_all()  # a restart: this time the conversation is reopened
    chat = app.send("pepper", conversation_id, chat)
    assert RESUMED_NOTICE in notices(chat)


def test_followed_branches_are_asked_once_and_kept_within_a_bound():
    followed = FollowedBranches(kept=2)
    followed.add("a")
    assert followed.take("a") is True and followed.take("a") is False
    for name in ("b", "c", "d"):
        followed.add(name)
    assert [followed.take(n) for n in ("b", "c", "d")] == [False, True, True]


def test_the_page_refresh_after_a_switch_leaves_a_running_turn_alone(app):
    from smolui.ui.message_actions import unless_running

    conversation_id, _ = two_turns(app)
    calls: list = []
    refresh = unless_running(app.chat, lambda *args: calls.append(args) or ("box", "stop"), 2)
    session = app.registry.get(conversation_id)
    assert session.begin_turn(wait=0.0)
    try:  # a switch clicked while a turn runs is refused: box and Stop stay as they are
        skipped = refresh(conversation_id, None)
        assert len(skipped) == 2 and "box" not in skipped and calls == []
    finally:
        session.end_turn()
    assert refresh(conversation_id, None) == ("box", "stop")
    assert calls == [(conversation_id, None)]
