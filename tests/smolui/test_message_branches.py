"""A conversation is a tree: edit any message, answer again, switch versions. Real store
(SQLite file, real PostgreSQL), real CodeAgent with its in-process executor, scripted model."""

from __future__ import annotations

import re

import pytest

from agents.loop.code_agent import CodeAgent
from agents.memory.steps import TaskStep
from agents.models.scripted import ScriptedModel
from smolui.conversations.branches import active_path_messages
from smolui.handlers.chat import HandlerConfig
from smolui.handlers.message_actions import NO_VERSIONS, STILL_RUNNING, MessageActions
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from smolui.uploads import UploadPolicy
from tests.smolui.app_process import AppProcess

WORDS = ("tomato", "basil", "pepper", "mint")


def seen_tasks(messages: list[dict]) -> list[str]:
    """The garden words of every task the model is shown, oldest first."""
    text = "\n".join(_text(m.get("content")) for m in messages if m.get("role") == "user")
    # A resumed conversation's task opens with a note for the model: its first garden word.
    found = [
        [w for w in re.findall(r"\w+", part) if w in WORDS] for part in text.split("New task:")
    ]
    return [words[0] for words in found[1:] if words]


def _text(content) -> str:
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def reply(messages: list[dict]) -> str:
    """Answers with the tasks the model was shown: what its memory holds."""
    return f"<code>\nfinal_answer({'saw ' + ' '.join(seen_tasks(messages))!r})\n</code>"


class App(AppProcess):
    def __init__(self, url: str, data):
        super().__init__(
            SessionRegistry(self._agent, data / "uploads", media_root=data / "media"),
            open_store(data, url, data / "uploads"),
            config=HandlerConfig(policy=UploadPolicy(), max_steps=3, executor_type="local"),
        )
        self.actions = MessageActions(self.chat)

    def _agent(self) -> CodeAgent:
        model = ScriptedModel([lambda messages: reply(messages)], loop=True)
        return CodeAgent([], model, executor_type="local", verbosity_level=-1)

    def run(self, result, conversation_id: str) -> list:
        return list(self.chat.run_turn(result.pending, result.chat, conversation_id))[-1][0]


@pytest.fixture
def app(store_url, tmp_path):
    app = App(store_url, tmp_path / "data")
    yield app
    app.close()


def answers(chat: list) -> list[str]:
    return [m["content"] for m in chat if str(m.get("content", "")).startswith("saw ")]


def two_turns(app: App) -> tuple[str, list]:
    conversation_id, chat, _, _ = app.pages.load(None, page="p1")
    chat = app.send("tomato", conversation_id, chat)
    chat = app.send("basil", conversation_id, chat)
    assert answers(chat) == ["saw tomato", "saw tomato basil"]
    return conversation_id, chat


def tasks(app: App, conversation_id: str) -> list[str]:
    agent = app.registry.get(conversation_id).agent
    return [step.task for step in agent.memory.steps if isinstance(step, TaskStep)]


def test_editing_the_first_message_branches_and_the_agent_remembers_only_that_branch(app):
    conversation_id, chat = two_turns(app)
    first = next(i for i, m in enumerate(chat) if m.get("content") == "tomato")
    result = app.actions.edit(chat, conversation_id, first, "pepper", "tomato")
    assert result.notice is None and result.chat == [{"role": "user", "content": "pepper"}]
    # The switcher shows at once, on the message being sent.
    assert [v["current"] for v in app.actions.versions(conversation_id)] == [2]
    chat = app.run(result, conversation_id)
    assert answers(chat) == ["saw pepper"], "the new branch holds no earlier turn"
    chat = app.send("mint", conversation_id, chat)
    assert answers(chat)[-1] == "saw pepper mint"
    assert app.actions.versions(conversation_id) == [
        {"position": 0, "current": 2, "total": 2, "role": "user", "turn": 0}
    ]
    back = app.actions.switch(chat, conversation_id, 0, -1)
    assert back.notice is None and answers(back.chat) == ["saw tomato", "saw tomato basil"]
    # The next turn remembers the branch shown, not the newest turn overall.
    chat = app.send("mint", conversation_id, back.chat)
    assert answers(chat)[-1] == "saw tomato basil mint"
    assert tasks(app, conversation_id)[:2] == ["tomato", "basil"]


def test_a_reload_keeps_the_branch_shown(app):
    conversation_id, chat = two_turns(app)
    result = app.actions.edit(chat, conversation_id, 0, "pepper", "tomato")
    app.run(result, conversation_id)
    state = {"owner": app.registry.get(conversation_id).owner, "current": conversation_id}
    app.actions.switch(chat, conversation_id, 0, -1)
    app.registry.close_all()  # a restart: only the store remains
    _, shown, _, _ = app.pages.load(state, page="p2")
    assert answers(shown) == ["saw tomato", "saw tomato basil"]
    owner = state["owner"]
    assert answers(active_path_messages(app.keeper, owner, conversation_id)) == answers(shown)


def test_retry_keeps_the_previous_answer_as_a_version(app):
    conversation_id, chat = two_turns(app)
    result = app.actions.retry(chat, conversation_id)
    assert result.notice is None and result.pending is not None
    chat = app.run(result, conversation_id)
    assert answers(chat) == ["saw tomato", "saw tomato basil"]
    [versions] = app.actions.versions(conversation_id)
    assert (versions["current"], versions["total"], versions["role"]) == (2, 2, "assistant")
    assert versions["turn"] == 1 and chat[versions["position"] - 1]["content"] == "basil"
    assert tasks(app, conversation_id) == ["tomato", "basil"], "the retried turn once"
    back = app.actions.switch(chat, conversation_id, versions["position"], -1)
    assert back.notice is None and answers(back.chat) == answers(chat)  # the same words
    assert app.actions.versions(conversation_id)[0]["current"] == 1
    assert app.actions.switch(back.chat, conversation_id, versions["position"], -1).notice == (
        NO_VERSIONS
    )


def test_a_search_hit_on_another_branch_opens_that_branch(app):
    conversation_id, chat = two_turns(app)
    result = app.actions.edit(chat, conversation_id, 0, "pepper", "tomato")
    app.run(result, conversation_id)
    owner = app.registry.get(conversation_id).owner
    assert [c.id for c in app.keeper.list(owner, "basil")] == [conversation_id]
    branches = app.actions._branches()
    assert branches.show_match(owner, conversation_id, "basil")
    assert answers(app.keeper.chat(app.keeper.find(owner, conversation_id)))[-1] == (
        "saw tomato basil"
    )


def test_opening_a_search_hit_from_the_list_shows_its_branch(app):
    conversation_id, chat = two_turns(app)
    result = app.actions.edit(chat, conversation_id, 0, "pepper", "tomato")
    app.run(result, conversation_id)
    state = {"owner": app.registry.get(conversation_id).owner, "current": conversation_id}
    other = app.pages.new_chat(state, page="p1")[0]
    _, shown, _, _ = app.pages.switch(conversation_id, other, state, "p1")
    assert answers(shown) == ["saw pepper"], "no search: the branch shown last"
    app.pages.new_chat(state, page="p1")
    _, shown, _, _ = app.pages.switch(conversation_id, other, state, "p1", "basil")
    assert answers(shown) == ["saw tomato", "saw tomato basil"], "the branch with the hit"


def test_no_switch_while_a_turn_runs_or_for_someone_elses_conversation(app):
    conversation_id, chat = two_turns(app)
    app.actions.edit(chat, conversation_id, 0, "pepper", "tomato")
    session = app.registry.open(conversation_id)
    assert session.begin_turn()
    try:
        assert app.actions.switch(chat, conversation_id, 0, -1).notice == STILL_RUNNING
    finally:
        session.end_turn()
    other, _, _, _ = app.pages.load(None, page="p9")
    assert app.actions.versions(other) == []
    assert app.actions.switch([], other, 0, -1).notice == NO_VERSIONS
