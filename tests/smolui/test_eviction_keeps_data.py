"""Eviction past the conversation cap loses nothing a visitor said, and picks its victims fairly.

Real parts: the registry, keeper and page handlers of one app process over a real conversation
store (SQLite, or PostgreSQL when configured), real CodeAgents on the in-process executor, a
scripted model that answers by the words of the latest task.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from agents.loop.code_agent import CodeAgent
from agents.models.messages import content_text
from agents.models.scripted import ScriptedModel, ScriptedReply
from smolui.handlers.chat import RELEASED_NOTICE, HandlerConfig
from smolui.sessions import Session, SessionRegistry
from smolui.store import open_store
from smolui.uploads import UploadPolicy
from tests.smolui.app_process import AppProcess
from tests.waiting import wait_for

RULES = {
    "teal": "<code>\nfavourite = 'teal'\nfinal_answer('Noted teal.')\n</code>",
    "Which colour": "<code>\nfinal_answer('You named a colour.')\n</code>",
}


def by_task(messages: list[dict]) -> str:
    """The scripted answer for the latest task's words."""
    tasks = [content_text(m.get("content")) for m in messages if m.get("role") == "user"]
    latest = next((t for t in reversed(tasks) if "New task:" in t), "")
    for keyword, answer in RULES.items():
        if keyword in latest:
            return answer
    return "<code>\nfinal_answer('no rule')\n</code>"


class App(AppProcess):
    """One app process with room for `cap` live conversations."""

    def __init__(self, url: str, data: Path, cap: int = 2):
        self.models: list[ScriptedModel] = []
        registry = SessionRegistry(
            self._agent, data / "uploads", media_root=data / "media", max_sessions=cap
        )
        config = HandlerConfig(policy=UploadPolicy(), max_steps=3, executor_type="local")
        super().__init__(registry, open_store(data, url, data / "uploads"), config=config)

    def _agent(self) -> CodeAgent:
        model = ScriptedModel([by_task], loop=True)
        self.models.append(model)
        return CodeAgent([], model, executor_type="local", verbosity_level=-1)


@pytest.fixture
def app(store_url, tmp_path):
    app = App(store_url, tmp_path / "data")
    yield app
    app.close()


def texts(chat: list) -> list[str]:
    return [m["content"] for m in chat if isinstance(m.get("content"), str)]


def others_open(app: App, count: int) -> None:
    """Other visitors open the page, each with a fresh browser (a new owner)."""
    for _ in range(count):
        app.pages.load(None)


def others_chat(app: App, count: int) -> None:
    """Other visitors open the page and send a message (their agents hold history)."""
    for _ in range(count):
        conversation_id, chat, _, _ = app.pages.load(None)
        app.send("My favourite colour is teal.", conversation_id, chat)


def stored_texts(app: App, owner: str, conversation_id: str) -> list[str]:
    record = app.keeper.find(owner, conversation_id)
    return texts(record.messages) if record is not None else []


def test_a_conversation_evicted_after_a_message_resumes_with_its_memory(app):
    conversation_id, chat, state, _ = app.pages.load(None, page="p1")
    chat = app.send("My favourite colour is teal.", conversation_id, chat)
    others_chat(app, 2)
    assert app.registry.get(conversation_id) is None, "the cap evicted it"

    chat = app.send("Which colour did I name?", conversation_id, chat)
    assert "You named a colour." in texts(chat)
    assert RELEASED_NOTICE not in texts(chat)
    sent = "\n".join(content_text(m.get("content")) for m in app.models[-1].calls[-1])
    assert "My favourite colour is teal." in sent, "the model sees the earlier message"
    for words in ("My favourite colour is teal.", "Which colour did I name?"):
        assert words in stored_texts(app, state["owner"], conversation_id)
    again, restored, _, choices = app.pages.load(state, page="p2")
    assert again == conversation_id and "You named a colour." in texts(restored)
    assert [c[1] for c in choices] == [conversation_id]


def test_a_page_evicted_before_its_first_message_keeps_both_messages(app):
    conversation_id, chat, state, _ = app.pages.load(None, page="p1")
    others_open(app, 3)
    assert app.registry.get(conversation_id) is None, "the cap evicted it"

    chat = app.send("My favourite colour is teal.", conversation_id, chat)
    assert app.registry.get(conversation_id) is not None, "it came back under its own id"
    assert RELEASED_NOTICE not in texts(chat), "there was nothing to forget"
    others_open(app, 3)
    chat = app.send("Which colour did I name?", conversation_id, chat)
    assert "You named a colour." in texts(chat) and RELEASED_NOTICE not in texts(chat)

    stored = stored_texts(app, state["owner"], conversation_id)
    assert "My favourite colour is teal." in stored and "Which colour did I name?" in stored
    again, restored, _, choices = app.pages.load(state, page="p2")
    assert again == conversation_id
    assert texts(restored) == texts(chat), "a reload shows the whole chat"
    assert [c[1] for c in choices] == [conversation_id]


def test_many_visitors_past_the_cap_all_keep_their_conversations(app):
    pages = [app.pages.load(None, page=f"p{n}") for n in range(8)]
    for conversation_id, chat, _, _ in pages:
        app.send("My favourite colour is teal.", conversation_id, chat)
    for conversation_id, _, state, _ in pages:
        assert "Noted teal." in stored_texts(app, state["owner"], conversation_id)


def test_idle_conversations_of_an_owner_with_several_go_before_a_sole_one(store_url, tmp_path):
    app = App(store_url, tmp_path / "data", cap=3)
    try:
        visitor, chat, _, _ = app.pages.load(None)  # the least recently used of all
        app.send("My favourite colour is teal.", visitor, chat)
        first, chat, flooder, _ = app.pages.load(None)
        app.send("My favourite colour is teal.", first, chat)
        second, chat, _, _ = app.pages.new_chat(flooder)
        app.send("My favourite colour is teal.", second, chat)
        third = app.pages.new_chat(flooder)[0]
        assert app.registry.get(visitor) is not None, "the visitor's only conversation stays"
        assert app.registry.get(first) is None, "the flooder's oldest conversation made room"
        assert app.registry.get(second) is not None and app.registry.get(third) is not None
    finally:
        app.close()


def test_a_flood_of_page_opens_never_takes_an_active_visitors_agent(app):
    visitor, chat, _, _ = app.pages.load(None)
    app.send("My favourite colour is teal.", visitor, chat)
    agent = app.registry.get(visitor).agent
    others_open(app, 20)
    session = app.registry.get(visitor)
    assert session is not None and session.agent is agent, "its variables are still there"


def test_a_conversation_with_a_running_turn_is_never_evicted(store_url, tmp_path):
    app = App(store_url, tmp_path / "data", cap=1)
    reached, gate = threading.Event(), threading.Event()
    reply = ScriptedReply("<code>\nfinal_answer('Held.')\n</code>", reached=reached, gate=gate)
    try:
        conversation_id, chat, _, _ = app.pages.load(None)
        session = app.registry.get(conversation_id)
        session.agent.model = ScriptedModel([reply])
        turn = threading.Thread(target=app.send, args=("Hold on.", conversation_id, chat))
        turn.start()
        wait_for(reached.is_set, "the turn reached its model call")
        shown = app.pages.load(None)[1]
        assert app.registry.get(conversation_id) is session, "the running turn kept its agent"
        assert "slots are busy" in "\n".join(texts(shown))
        gate.set()
        turn.join(60)
        assert not turn.is_alive()
    finally:
        gate.set()
        app.close()


def test_a_page_open_starts_at_most_one_unused_worker_per_owner(store_url, tmp_path, monkeypatch):
    app = App(store_url, tmp_path / "data", cap=8)
    prepared: list[str] = []
    prepare = Session.prepare

    def counted(session: Session):  # recorded as it is asked for: the build runs in a thread
        prepared.append(session.id)
        return prepare(session)

    monkeypatch.setattr(Session, "prepare", counted)
    try:
        first, _, state, _ = app.pages.load(None)
        wait_for(lambda: app.registry.get(first).has_agent, "the first page open built its agent")
        for _ in range(4):
            app.pages.new_chat(state)
        assert prepared == [first], "new chats of the same owner start no more workers"
        other = app.pages.load(None)[0]
        assert prepared == [first, other], "another visitor's page is prepared as before"
    finally:
        app.close()
