"""Approve before it runs, in the app's turns: the pending action is stored and shown, the
turn waits, and the answer (run, edited, skipped, stopped; from any page, once) decides what
runs, without a second model call for that step.

Real parts: a real store (SQLite file, real PostgreSQL), real CodeAgents with the in-process
executor; scripted models only decide what the agent writes.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from agents.loop.code_agent import CodeAgent
from agents.loop.tool_calling_agent import ToolCallingAgent
from agents.models.messages import content_text
from agents.models.scripted import ScriptedModel, ScriptedReply
from smolui.approvals import ChatApprovals
from smolui.approvals.service import ALREADY_ANSWERED
from smolui.handlers.chat import HandlerConfig
from smolui.render.approval import WAITING_TITLE
from smolui.render.export import to_markdown
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from smolui.uploads import UploadPolicy
from tests.agents.approval_helpers import make_tools
from tests.smolui.app_process import AppProcess
from tests.waiting import wait_for

PROPOSED = "<code>\nresult = 6 * 7\nfinal_answer(f'The answer is {result}.')\n</code>"
EDITED = "result = 6 * 9\nfinal_answer(f'The answer is {result}.')"


class App(AppProcess):
    """One app process whose turns ask for approval (`--approve` given as `setting`); with
    `tools`, its agents are ToolCallingAgents with those tools; `options` go to
    `ChatApprovals` (timeout, required, poll interval); with `stream`, the model's words
    reach the page as they come (the step shows before its action waits)."""

    def __init__(
        self,
        url: str,
        data: Path,
        replies: list,
        setting: str = "code",
        tools: list = (),
        stream: bool = False,
        **options: Any,
    ):
        self.models: list[ScriptedModel] = []
        self.replies, self.tools, self.stream = replies, list(tools), stream
        store = open_store(data, url, data / "uploads")
        self.approvals = ChatApprovals(setting, lambda: store, **options)
        config = HandlerConfig(
            policy=UploadPolicy(), max_steps=3, executor_type="local", approvals=self.approvals
        )
        registry = SessionRegistry(self._agent, data / "uploads", media_root=data / "media")
        super().__init__(registry, store, config=config)

    def _agent(self) -> Any:
        model = ScriptedModel(list(self.replies))
        self.models.append(model)
        if self.tools:
            return ToolCallingAgent(self.tools, model, verbosity_level=-1)
        return CodeAgent(
            [], model, executor_type="local", verbosity_level=-1, stream_outputs=self.stream
        )

    def start(self, text: str) -> tuple[str, list, threading.Thread]:
        """Send a message from a page in a thread (the turn waits for the answer)."""
        conversation_id, chat, _, _ = self.pages.load(None, page="p1")
        shown, pending = self.chat.echo({"text": text, "files": []}, chat)
        chats: list = []

        def run() -> None:
            chats.extend(c for c, _ in self.chat.run_turn(pending, shown, conversation_id))

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return conversation_id, chats, thread


@pytest.fixture
def make_app(store_url, tmp_path):
    apps: list[App] = []

    def make(replies: list, setting: str = "code", tools: list = (), **options: Any) -> App:
        # `stream` (see `App`) travels in `options` with the approvals' own options.
        apps.append(App(store_url, tmp_path / "data", replies, setting, tools, **options))
        return apps[-1]

    yield make
    for app in apps:
        app.close()


def texts(chat: list) -> str:
    return "\n".join(m["content"] for m in chat if isinstance(m.get("content"), str))


def waiting_for(app: App, conversation_id: str):
    return wait_for(lambda: app.approvals.waiting(conversation_id), "the code waits for approval")


def test_the_pending_code_is_shown_edited_and_run_without_a_second_model_call(make_app):
    app = make_app([PROPOSED])
    conversation_id, chats, thread = app.start("What is six times seven?")
    pending = waiting_for(app, conversation_id)
    assert pending.code.startswith("result = 6 * 7")
    live = app.registry.get(conversation_id).live_turn
    shown = wait_for(lambda: WAITING_TITLE in str(live.shown_to(None)) and live.shown_to(None),
                     "the chat shows the pending code")  # fmt: skip
    assert "result = 6 * 7" in texts(shown)
    owner = app.registry.get(conversation_id).owner
    stored = wait_for(
        lambda: (
            (m := app.keeper.store.get(owner, conversation_id).messages)
            and "result = 6 * 7" in texts(m)
            and m
        ),
        "the stored chat shows the pending code (a reload, another replica)",
    )
    assert stored[0]["content"] == "What is six times seven?", "under the user's message"

    assert app.approvals.answer(conversation_id, pending.id, "run", EDITED).ok
    assert app.approvals.answer(conversation_id, pending.id, "run").message == ALREADY_ANSWERED
    thread.join(60)
    final = chats[-1]
    assert "The answer is 54." in texts(final) and "The answer is 42." not in texts(final)
    assert len(app.models[-1].calls) == 1, "the model wrote that step once"
    assert WAITING_TITLE not in texts(final)
    assert "Edited, then approved" in texts(final) and "6 * 9" in texts(final)
    assert "Edited, then approved" in to_markdown(final), "the export shows the decision"


def test_a_skipped_action_runs_nothing_and_the_model_reads_the_reason(make_app):
    wrote = "<code>\nopen('notes.txt', 'w').write('x')\nfinal_answer('written')\n</code>"
    app = make_app([wrote, "<code>\nfinal_answer('Understood, nothing written.')\n</code>"])
    conversation_id, chats, thread = app.start("Write a note.")
    pending = waiting_for(app, conversation_id)
    assert app.approvals.answer(conversation_id, pending.id, "skip", reason="No files today.").ok
    thread.join(60)
    assert "Understood, nothing written." in texts(chats[-1])
    sent = "\n".join(content_text(m.get("content")) for m in app.models[-1].calls[-1])
    assert "No files today." in sent
    assert not (Path.cwd() / "notes.txt").exists()


def test_stop_while_waiting_ends_the_turn_and_the_action_can_no_longer_be_answered(make_app):
    app = make_app([PROPOSED])
    conversation_id, chats, thread = app.start("What is six times seven?")
    pending = waiting_for(app, conversation_id)
    assert app.chat.stop(conversation_id)
    wait_for(lambda: app.approvals.waiting(conversation_id) is None, "the action is withdrawn")
    thread.join(60)
    assert "The answer is" not in texts(chats[-1])
    assert not app.approvals.answer(conversation_id, pending.id, "run").ok


def test_stop_as_the_answer_stops_the_turn(make_app):
    app = make_app([PROPOSED])
    conversation_id, chats, thread = app.start("What is six times seven?")
    pending = waiting_for(app, conversation_id)
    assert app.approvals.answer(conversation_id, pending.id, "stop", reason="Enough.").ok
    thread.join(60)
    assert "The answer is" not in texts(chats[-1]) and "Stopped" in texts(chats[-1])


def test_with_the_switch_off_the_code_runs_unasked(make_app):
    app = make_app([PROPOSED])
    conversation_id, _, _, _ = app.pages.load(None, page="p1")
    app.approvals.set_enabled(conversation_id, False)
    chat = app.send("What is six times seven?", conversation_id, [])
    assert "The answer is 42." in texts(chat)
    assert app.approvals.waiting(conversation_id) is None


def test_the_app_default_never_asks_until_the_conversation_switches_it_on(make_app):
    app = make_app([PROPOSED, PROPOSED], setting="never")
    conversation_id, _, _, _ = app.pages.load(None, page="p1")
    assert not app.approvals.enabled(conversation_id)
    chat = app.send("What is six times seven?", conversation_id, [])
    assert "The answer is 42." in texts(chat)
    app.approvals.set_enabled(conversation_id, True)
    shown, pending = app.chat.echo({"text": "Again?", "files": []}, chat)
    thread = threading.Thread(
        target=lambda: list(app.chat.run_turn(pending, shown, conversation_id)), daemon=True
    )
    thread.start()
    waiting = waiting_for(app, conversation_id)
    assert app.approvals.answer(conversation_id, waiting.id, "run").ok
    thread.join(60)


def test_a_wrong_answer_is_refused_with_a_clear_message(make_app):
    app = make_app([PROPOSED])
    conversation_id, _, thread = app.start("What is six times seven?")
    pending = waiting_for(app, conversation_id)
    assert "Unknown answer" in app.approvals.answer(conversation_id, pending.id, "maybe").message
    other = app.approvals.answer("another-conversation", pending.id, "run")
    assert not other.ok and "not part of this conversation" in other.message
    assert app.approvals.answer(conversation_id, pending.id, "run").ok
    thread.join(60)


def call(name: str, **arguments: Any) -> ScriptedReply:
    return ScriptedReply("", tool_calls=[(name, arguments)])


def test_a_tool_call_is_edited_as_json_and_then_always_allowed(make_app):
    sent: list = []
    replies = [
        call("send_email", to="boss@example.com", body="hi"),
        call("send_email", to="team@example.com", body="lunch?"),
        call("final_answer", answer="Both sent."),
    ]
    app = make_app(replies, setting="send_email", tools=make_tools(sent))
    conversation_id, chats, thread = app.start("Email my boss, then the team.")
    first = waiting_for(app, conversation_id)
    assert first.kind == "tool" and first.arguments == {"to": "boss@example.com", "body": "hi"}
    refused = app.approvals.answer(conversation_id, first.id, "run", "{not json")
    assert not refused.ok and "not valid JSON" in refused.message
    edited = '{"to": "boss@example.com", "body": "Hello, see you at nine."}'
    assert app.approvals.answer(conversation_id, first.id, "run", edited).ok
    second = wait_for(
        lambda: (w := app.approvals.waiting(conversation_id)) and w.id != first.id and w,
        "the second call waits",
    )
    assert app.approvals.answer(conversation_id, second.id, "always").ok
    thread.join(60)
    assert sent == [("boss@example.com", "Hello, see you at nine."), ("team@example.com", "lunch?")]
    assert app.approvals.store.switch(conversation_id).allowed_tools == ("send_email",)
    assert "Both sent." in texts(chats[-1])
    # From now on the tool runs unasked in this conversation.
    app.models[-1].add(call("send_email", to="x@example.com", body="again"))
    app.models[-1].add(call("final_answer", answer="Sent again."))
    chat = app.send("Once more.", conversation_id, chats[-1])
    assert "Sent again." in texts(chat) and sent[-1] == ("x@example.com", "again")
