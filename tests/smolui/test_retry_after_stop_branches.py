"""Retry pressed right after Stop keeps the stopped answer as a version, like any Retry:
the person stops a turn whose model call is still in flight, presses Retry at once (it waits
for the stopped step to end), and afterwards finds "‹ 1/2 ›" on the answer with the stopped
one behind it. Real store (SQLite file, real PostgreSQL), real CodeAgent, scripted model."""

from __future__ import annotations

import threading

import pytest

from agents.loop.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel, ScriptedReply
from smolui.handlers.chat import HandlerConfig
from smolui.handlers.message_actions import RETRY_AFTER_STOP, MessageActions
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from smolui.turns.runner import STOP_NOTE
from smolui.uploads import UploadPolicy
from tests.smolui.app_process import AppProcess
from tests.waiting import wait_for

RETRIED = "Plant tomatoes in May."


class App(AppProcess):
    """One app process whose model holds its first call open until the test releases it."""

    def __init__(self, url: str, data):
        self.reached, self.gate = threading.Event(), threading.Event()
        super().__init__(
            SessionRegistry(self._agent, data / "uploads", media_root=data / "media"),
            open_store(data, url, data / "uploads"),
            config=HandlerConfig(policy=UploadPolicy(), max_steps=3, executor_type="local"),
        )
        self.actions = MessageActions(self.chat)

    def _agent(self) -> CodeAgent:
        replies = [
            ScriptedReply(
                "Thought: look it up.\n<code>\nprint('looking')\n</code>",
                reached=self.reached,
                gate=self.gate,
            ),
            f"<code>\nfinal_answer({RETRIED!r})\n</code>",
        ]
        return CodeAgent([], ScriptedModel(replies), executor_type="local", verbosity_level=-1)


@pytest.fixture
def app(store_url, tmp_path):
    app = App(store_url, tmp_path / "data")
    yield app
    app.gate.set()  # a failed test leaves no model call held
    app.close()


def texts(chat: list) -> list[str]:
    return [m["content"] for m in chat if isinstance(m.get("content"), str)]


def was_stopped(chat: list) -> bool:
    return any(STOP_NOTE in text for text in texts(chat))


def test_retry_pressed_right_after_stop_keeps_the_stopped_answer_as_a_version(app):
    conversation_id, chat, _, _ = app.pages.load(None, page="p1")
    shown, pending = app.chat.echo({"text": "When do tomatoes go out?", "files": []}, chat)
    turn = app.chat.run_turn(pending, shown, conversation_id)
    next(turn)
    stopped: list = []
    first = threading.Thread(target=lambda: stopped.extend(turn))
    first.start()
    try:
        wait_for(app.reached.is_set, "the first turn's model call began")
        app.chat.stop(conversation_id)  # the call in flight still ends its step
        queued = app.actions.retry(shown, conversation_id)  # at once, as a person does
        assert queued.notice == RETRY_AFTER_STOP and queued.pending is not None
    finally:
        app.gate.set()
    final = list(app.chat.run_turn(queued.pending, queued.chat, conversation_id))[-1][0]
    first.join(60)
    assert not first.is_alive(), "the stopped turn ended"
    assert was_stopped(stopped[-1][0]), "the first turn did stop"
    assert RETRIED in texts(final) and not was_stopped(final)

    [versions] = app.actions.versions(conversation_id)
    assert (versions["current"], versions["total"], versions["role"]) == (2, 2, "assistant")
    assert versions["turn"] == 0
    back = app.actions.switch(final, conversation_id, versions["position"], -1)
    assert back.notice is None
    assert was_stopped(back.chat) and RETRIED not in texts(back.chat), (
        "the stopped answer is kept behind the new one"
    )
    ahead = app.actions.switch(back.chat, conversation_id, versions["position"], 1)
    assert RETRIED in texts(ahead.chat)
