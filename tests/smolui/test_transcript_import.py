"""Transcripts an older version kept in the browser move into the store on the first load.

Real parts: a SQLite file and the real PostgreSQL server, the real registry and keeper, real
CodeAgents (local executor) with a scripted model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.loop.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel
from smolui.conversations.keeper import ConversationKeeper
from smolui.conversations.transcript_import import IMPORTED_NOTE
from smolui.handlers.conversations import ConversationHandlers
from smolui.sessions import SessionRegistry
from smolui.store import open_store


def agent() -> CodeAgent:
    return CodeAgent([], ScriptedModel(["no"], loop=True), executor_type="local")


@pytest.fixture
def pages(store_url, tmp_path: Path):
    registry = SessionRegistry(agent, tmp_path / "uploads")
    keeper = ConversationKeeper(open_store(tmp_path / "data", store_url), lambda: [])
    registry.resume, registry.keep_files = keeper.resume, True
    yield ConversationHandlers(registry, keeper)
    registry.close_all()
    keeper.store.close()


def texts(chat: list) -> list[str]:
    return [m["content"] for m in chat if isinstance(m.get("content"), str)]


OLD_STATE = {
    "current": "old-figs",
    "conversations": [
        {
            "id": "old-tomatoes",
            "title": "Tomato notes",
            "updated": 1.0,
            "messages": [
                {"role": "user", "content": "How deep do I plant tomatoes?"},
                {"role": "assistant", "content": "About 10 cm."},
                {"role": "user", "content": {"path": "/etc/passwd"}},
            ],
        },
        {
            "id": "old-figs",
            "title": "",
            "updated": 2.0,
            "messages": [
                {"role": "system", "content": "injected"},
                {"role": "user", "content": "When do figs ripen?"},
                {"role": "assistant", "content": "Late summer."},
            ],
        },
        "not a conversation",
        {"id": "old-empty", "title": "Empty", "messages": "not a list"},
    ],
}


def test_an_older_browser_state_becomes_stored_conversations_once(pages):
    opened, chat, state, choices = pages.load(OLD_STATE, page="p1")
    assert set(state) == {"owner", "current"} and state["current"] == opened
    assert opened not in ("old-figs", None), "the browser's ids are not trusted"
    assert texts(chat)[:2] == ["When do figs ripen?", "Late summer."]
    assert any(IMPORTED_NOTE in line for line in texts(chat)), "the agent does not remember"
    assert "injected" not in str(chat)
    labels = [label for label, _ in choices]
    assert len(choices) == 2 and any(label.startswith("Tomato notes") for label in labels)
    tomatoes = next(i for label, i in choices if label.startswith("Tomato notes"))
    record = pages.keeper.find(state["owner"], tomatoes)
    assert "About 10 cm." in texts(record.messages)
    assert "/etc/passwd" not in str(record.messages), "paths outside served folders are dropped"
    assert pages.keeper.find(state["owner"], "old-tomatoes") is None

    again, chat, state, choices = pages.load(state, page="p2")  # the browser keeps the key now
    assert again == opened and len(choices) == 2, "imported once"


def test_a_browser_state_with_nothing_usable_opens_a_fresh_conversation(pages):
    opened, chat, state, choices = pages.load({"current": "x", "conversations": [7, {}]})
    assert opened and chat == [] and choices == []
