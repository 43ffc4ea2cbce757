"""A message shown but not started goes either to its turn or back to a reopened page, once.

Real parts: the app's turn handlers and conversation handlers with a real CodeAgent on the
local executor and a SQLite store; only the model is scripted.
"""

from __future__ import annotations

from pathlib import Path

from agents.loop.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel
from smolui.handlers.chat import GIVEN_BACK_NOTICE
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from smolui.turns.pending import PendingTurn
from smolui.turns.unsent import UnsentMessages
from tests.smolui.app_process import AppProcess

ANSWER = "<code>\nfinal_answer('Noted.')\n</code>"


class App(AppProcess):
    """The handlers a page talks to, on a SQLite store."""

    def __init__(self, tmp_path: Path):
        self.models: list[ScriptedModel] = []
        super().__init__(
            SessionRegistry(self._agent, tmp_path / "uploads"), open_store(tmp_path / "data")
        )

    def _agent(self) -> CodeAgent:
        model = ScriptedModel([ANSWER], loop=True)
        self.models.append(model)
        return CodeAgent([], model, executor_type="local", verbosity_level=-1)


def texts(chat: list[dict]) -> list[str]:
    return [m["content"] for m in chat if isinstance(m.get("content"), str)]


def test_a_reload_before_the_turn_starts_gives_the_message_back_and_the_late_turn_skips_it(
    tmp_path,
):
    app = App(tmp_path)
    conversation_id, chat, state, _ = app.pages.load(None)
    shown, pending = app.chat.echo({"text": "Keep 42", "files": []}, chat, conversation_id)
    assert texts(shown) == ["Keep 42"] and pending.token

    again, chat, _, _ = app.pages.load(state)  # the page reloads: its turn never started
    assert again == conversation_id and chat == [], "nothing was stored"
    assert app.chat.unsent.give_back(again) == {"text": "Keep 42", "files": []}
    assert app.chat.unsent.give_back(again) is None, "given back once"

    late = list(app.chat.run_turn(pending, shown, conversation_id))  # the old page's turn
    assert texts(late[-1][0])[-1].endswith(GIVEN_BACK_NOTICE)
    assert not app.models or not app.models[0].calls, "the model never ran it"
    assert app.keeper.find(state["owner"], conversation_id) is None, "nothing was stored"
    app.close()


def test_a_turn_that_starts_takes_its_message_so_a_reload_gets_nothing_back(tmp_path):
    app = App(tmp_path)
    conversation_id, chat, state, _ = app.pages.load(None)
    shown, pending = app.chat.echo({"text": "Keep 42", "files": []}, chat, conversation_id)
    *_, (final, _) = app.chat.run_turn(pending, shown, conversation_id)
    assert "Noted." in texts(final)
    assert app.chat.unsent.give_back(conversation_id) is None
    _, chat, _, _ = app.pages.load(state)
    assert texts(chat)[0] == "Keep 42", "the reloaded page shows it from the store"
    app.close()


def test_retries_and_requests_never_held_always_run():
    unsent = UnsentMessages()
    assert unsent.take("c1", PendingTurn.retry_last())
    assert unsent.hold(None, PendingTurn.message("x")) == PendingTurn.message("x")
    first = unsent.hold("c1", PendingTurn.message("one"))
    second = unsent.hold("c1", PendingTurn.message("two"))  # the latest is the one held
    assert unsent.take("c1", first), "an older turn still runs"
    assert unsent.give_back("c1") == {"text": "two", "files": []}
    assert not unsent.take("c1", second)
    assert unsent.take("c1", second), "told once; the note is then forgotten"


def test_held_messages_are_forgotten_after_a_while():
    now = [0.0]
    unsent = UnsentMessages(keep_s=60.0, clock=lambda: now[0])
    pending = unsent.hold("c1", PendingTurn.message("one"))
    unsent.hold("c2", PendingTurn.message("two"))
    now[0] = 61.0
    assert unsent.give_back("c1") is None and unsent.give_back("c2") is None
    assert unsent.take("c1", pending)
    assert unsent._held == {} and unsent._given_back == {}
