"""What events outside the queue leave on the server stays bounded, whatever a visitor sends:
held unsent messages, pages that may reattach to a turn, pages a conversation tracks, and
conversations remembered after eviction. Each bound is driven past its limit through the
real object (or the real handlers), and what is kept is counted."""

from __future__ import annotations

from pathlib import Path

from agents.loop.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel
from smolui.handlers.chat import ChatHandlers, HandlerConfig
from smolui.sessions import SessionRegistry, new_conversation_id
from smolui.sessions.registry import MOST_PAGES
from smolui.sessions.released import RELEASED_PER_OWNER
from smolui.turns.live import MOST_PAGES as MOST_FOLLOWERS
from smolui.turns.live import LiveTurn
from smolui.turns.pending import PendingTurn
from smolui.turns.unsent import MAX_ID_CHARS, UnsentMessages
from smolui.uploads import UploadPolicy


def agent() -> CodeAgent:
    return CodeAgent([], ScriptedModel([]), executor_type="local", verbosity_level=-1)


def test_held_unsent_messages_are_bounded_and_the_newest_kept():
    unsent = UnsentMessages(most=3)
    ids = [new_conversation_id() for _ in range(10)]
    for n, conversation_id in enumerate(ids):
        unsent.hold(conversation_id, PendingTurn.message(f"message {n}"))
    assert len(unsent) == 3
    assert unsent.give_back(ids[0]) is None, "the oldest was forgotten"
    assert unsent.give_back(ids[-1]) == {"text": "message 9", "files": []}


def test_a_forged_long_id_holds_nothing_through_the_page_s_echo(tmp_path: Path):
    registry = SessionRegistry(agent, tmp_path / "uploads")
    config = HandlerConfig(policy=UploadPolicy(), max_steps=1, executor_type="local")
    chat = ChatHandlers(registry, config)
    forged = "x" * (MAX_ID_CHARS + 1)
    for n in range(50):  # `echo` runs outside the queue: every click lands here
        chat.echo({"text": f"flood {n}", "files": []}, [], forged + str(n))
    assert len(chat.unsent) == 0
    chat.echo({"text": "real", "files": []}, [], new_conversation_id())
    assert len(chat.unsent) == 1


def test_notes_of_messages_given_back_are_bounded():
    unsent = UnsentMessages(most=2)
    for n in range(10):
        conversation_id = new_conversation_id()
        unsent.hold(conversation_id, PendingTurn.message(str(n)))
        unsent.give_back(conversation_id)
    assert len(unsent._given_back) == 2


def test_pages_that_may_reattach_to_a_turn_are_bounded():
    live = LiveTurn([])
    pages = [f"page-{n}" for n in range(MOST_FOLLOWERS + 50)]
    for page in pages:
        live.shown_to(page)
    assert not live.claim(pages[0]), "the oldest page no longer reattaches"
    assert live.claim(pages[-1]) and not live.claim(pages[-1]), "the newest does, once"
    assert sum(live.claim(page) for page in pages) == MOST_FOLLOWERS - 1


def test_pages_a_conversation_tracks_are_bounded(tmp_path: Path):
    registry = SessionRegistry(agent, tmp_path / "uploads")
    session = registry.open(None, page="first")
    for n in range(MOST_PAGES * 3):  # tabs whose close never arrived
        registry.open(session.id, page=f"page-{n}")
    assert len(session.pages) == MOST_PAGES
    for page in list(session.pages):
        registry.page_closed(page)
    assert session.closing_at is not None, "closing the pages it tracks starts the grace period"


def test_conversations_remembered_after_eviction_are_capped_per_owner(tmp_path: Path):
    registry = SessionRegistry(agent, tmp_path / "uploads", max_sessions=1)
    visitor = registry.open(None)
    visitor.owner = "visitor"
    for _ in range(RELEASED_PER_OWNER * 2):  # one owner's flood of "New chat"
        registry.open(None).owner = "flooder"
    registry.open(None)  # the last flood conversation is evicted too
    assert len(registry._released) == RELEASED_PER_OWNER + 1
    back = registry.open(visitor.id)
    assert back.id == visitor.id and back.owner == "visitor", "the flood kept the visitor's"
