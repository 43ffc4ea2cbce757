"""After a restart, answering the action a gone turn held resumes that turn from the stored
memory: the held action runs (or is skipped) as answered, the model is not asked again for
that step, the turn goes on and is saved; of two answers only one runs it.

Real parts: an app process killed with SIGKILL while its action waits (`approval_child`), or
closed as SIGTERM closes it (the waiting turn is left waiting, its action kept), a second app
process on the same store (SQLite file, real PostgreSQL); scripted models decide only what the
agents write.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from agents.loop.code_agent import CodeAgent
from agents.loop.tool_calling_agent import ToolCallingAgent
from agents.models.messages import content_text
from agents.models.scripted import ScriptedModel, ScriptedReply
from smolui.approvals import ChatApprovals
from smolui.approvals.service import ALREADY_ANSWERED, NO_LONGER_WAITING
from smolui.handlers.chat import HandlerConfig
from smolui.render.approval import WAITING_TITLE
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from smolui.store.approvals import PendingApprovalRow
from smolui.uploads import UploadPolicy
from tests.smolui.app_process import AppProcess
from tests.smolui.approval_child import waiting_app
from tests.smolui.approval_tools import calls_made, count_call
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]


def killed_while_waiting(url: str, data: Path, kind: str, sig: int = signal.SIGKILL) -> str:
    """Run an app that holds an action, then kill it with SIGKILL (or stop it with SIGTERM,
    and see it exit cleanly); the conversation's id."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.smolui.approval_child", url, str(data), kind],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        conversation_id = child.stdout.readline().strip()
    finally:
        os.kill(child.pid, sig)
        status = child.wait(timeout=120)
        child.stdout.close()
    assert conversation_id, "the child app printed its conversation once the action waited"
    assert sig == signal.SIGKILL or status == 0, f"the app exited with {status} on SIGTERM"
    return conversation_id


class Restarted(AppProcess):
    """The app started again on the same store; its agents' models are kept in `models`."""

    def __init__(self, url: str, data: Path, kind: str, replies: list):
        self.models: list[ScriptedModel] = []
        self.kind, self.replies, self.data = kind, replies, data
        store = open_store(data, url, data / "uploads")
        setting = "code" if kind == "code" else "count_call"
        self.approvals = ChatApprovals(setting, lambda: store)
        config = HandlerConfig(policy=UploadPolicy(), max_steps=3, executor_type="local",
                               approvals=self.approvals)  # fmt: skip
        registry = SessionRegistry(self._agent, data / "uploads", media_root=data / "media")
        super().__init__(registry, store, config=config)

    def _agent(self) -> Any:
        model = ScriptedModel(list(self.replies))
        self.models.append(model)
        if self.kind == "code":
            return CodeAgent([], model, executor_type="local", verbosity_level=-1)
        return ToolCallingAgent([count_call(self.data)], model, verbosity_level=-1)

    def long_untouched(self, approval_id: str) -> None:
        """As if the dead process stopped touching the row long ago (a shared database
        tells a gone turn by that alone)."""
        from datetime import UTC, datetime

        old = datetime(2000, 1, 1, tzinfo=UTC)
        query = update(PendingApprovalRow).where(PendingApprovalRow.id == approval_id)
        with self.keeper.store.engine.begin() as connection:
            connection.execute(query.values(touched_at=old))


@pytest.fixture
def restart(store_url, tmp_path):
    apps: list[Restarted] = []
    data = tmp_path / "data"
    data.mkdir()

    def make(kind: str, replies: list) -> tuple[Restarted, str]:
        conversation_id = killed_while_waiting(store_url, data, kind)
        apps.append(Restarted(store_url, data, kind, replies))
        return apps[-1], conversation_id

    yield make
    for app in apps:
        app.close()


def texts(chat: list) -> str:
    return "\n".join(m["content"] for m in chat if isinstance(m.get("content"), str))


def stored(app: Restarted, conversation_id: str):
    owner = app.keeper.store.owner_of(conversation_id)
    return app.keeper.store.get(owner, conversation_id)


def test_an_approved_code_block_runs_after_a_restart_without_a_second_model_call(restart):
    app, conversation_id = restart("code", [])
    pending = app.approvals.waiting(conversation_id)
    assert pending is not None and pending.model_output is not None
    app.long_untouched(pending.id)
    assert app.approvals.answer(conversation_id, pending.id, "run", page="p2").ok
    chats = list(app.chat.follow(conversation_id, "p2"))
    final = chats[-1]
    assert "The answer is 42." in texts(final)
    assert WAITING_TITLE not in texts(final), "the pending action left the chat"
    assert final[0]["content"] == "What is six times seven?", "the turn goes on under its message"
    assert app.models and all(model.calls == [] for model in app.models), "no model call"
    record = wait_for(
        lambda: (r := stored(app, conversation_id)) and r.turn_state == "done" and r,
        "the resumed turn is saved",
    )
    assert "The answer is 42." in texts(record.messages)
    late = app.approvals.answer(conversation_id, pending.id, "run", page="p3")
    assert late.message == ALREADY_ANSWERED


def test_a_skipped_tool_call_after_a_restart_runs_nothing_and_the_model_reads_why(restart):
    final = ScriptedReply("", tool_calls=[("final_answer", {"answer": "Not recorded, as asked."})])
    app, conversation_id = restart("tool", [final])
    pending = app.approvals.waiting(conversation_id)
    assert pending.tool_name == "count_call"
    app.long_untouched(pending.id)
    assert app.approvals.answer(conversation_id, pending.id, "skip", reason="Not today.",
                                page="p2").ok  # fmt: skip
    chats = list(app.chat.follow(conversation_id, "p2"))
    assert "Not recorded, as asked." in texts(chats[-1])
    assert calls_made(app.data) == [], "the skipped call did not run"
    (model,) = app.models
    assert len(model.calls) == 1, "the model was asked for the next step only"
    assert "Not today." in "\n".join(content_text(m.get("content")) for m in model.calls[0])


def test_two_answers_at_once_after_a_restart_run_the_call_once(restart):
    final = ScriptedReply("", tool_calls=[("final_answer", {"answer": "Recorded."})])
    app, conversation_id = restart("tool", [final])
    pending = app.approvals.waiting(conversation_id)
    app.long_untouched(pending.id)
    start = threading.Barrier(2)
    results: list = []

    def answer(page: str) -> None:
        start.wait()
        results.append(app.approvals.answer(conversation_id, pending.id, "run", page=page))

    pages = [threading.Thread(target=answer, args=(p,)) for p in ("p2", "p3")]
    for page in pages:
        page.start()
    for page in pages:
        page.join(60)
    assert sorted(r.ok for r in results) == [False, True]
    assert [r.message for r in results if not r.ok] == [ALREADY_ANSWERED]
    wait_for(
        lambda: (r := stored(app, conversation_id)) and r.turn_state == "done",
        "the resumed turn is saved",
    )
    assert calls_made(app.data) == ["hello"], "the call ran once"


def test_an_answer_that_cannot_resume_yet_leaves_the_action_waiting(restart):
    app, conversation_id = restart("code", [])
    pending = app.approvals.waiting(conversation_id)
    app.long_untouched(pending.id)
    session = app.registry.open(conversation_id)
    session, claimed = app.registry.claim(session)  # another turn holds the conversation
    assert claimed
    try:
        busy = app.approvals.answer(conversation_id, pending.id, "run", page="p2")
    finally:
        session.end_turn()
    assert not busy.ok and busy.message.endswith("Nothing ran.")
    assert app.approvals.waiting(conversation_id).id == pending.id, "it waits again"
    assert app.approvals.answer(conversation_id, pending.id, "run", page="p2").ok
    assert "The answer is 42." in texts(list(app.chat.follow(conversation_id, "p2"))[-1])


def test_a_new_message_after_the_restart_withdraws_the_action_it_supersedes(restart):
    app, conversation_id = restart("code", ["<code>\nfinal_answer('Fresh start.')\n</code>"])
    pending = app.approvals.waiting(conversation_id)
    app.long_untouched(pending.id)
    app.approvals.set_enabled(conversation_id, False)  # the new turn runs unasked
    owner = app.keeper.store.owner_of(conversation_id)
    state = {"owner": owner, "current": conversation_id}
    _, chat, _, _ = app.pages.load(state, page="p2")
    assert "Run it, edit it" in texts(chat), "the page shows the card of the gone turn"
    shown = app.send("Start again.", conversation_id, chat)
    assert "Fresh start." in texts(shown)
    assert app.approvals.waiting(conversation_id) is None
    record = wait_for(
        lambda: (r := stored(app, conversation_id)) and r.turn_state == "done" and r,
        "the new turn is saved",
    )
    for kept in (shown, record.messages):  # the card no longer asks; it says nothing ran
        assert "Run it, edit it" not in texts(kept) and "it did not run" in texts(kept)
        titles = [str((m.get("metadata") or {}).get("title")) for m in kept]
        assert not any("approval" in title for title in titles), titles
        assert "Step 1 · not answered" in titles
    late = app.approvals.answer(conversation_id, pending.id, "run", page="p2")
    assert not late.ok and late.message == NO_LONGER_WAITING


def test_an_action_waiting_at_sigterm_is_kept_and_resumes_after_the_restart(store_url, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    conversation_id = killed_while_waiting(store_url, data, "code", signal.SIGTERM)
    app = Restarted(store_url, data, "code", [])
    try:
        pending = app.approvals.waiting(conversation_id)
        assert pending is not None, "the action still waits: the shutdown did not stop it"
        assert stored(app, conversation_id).turn_state == "running"
        app.long_untouched(pending.id)
        assert app.approvals.answer(conversation_id, pending.id, "run", page="p2").ok
        final = list(app.chat.follow(conversation_id, "p2"))[-1]
        assert "The answer is 42." in texts(final)
        assert app.models and all(model.calls == [] for model in app.models), "no model call"
    finally:
        app.close()


def test_without_the_approvals_say_the_shutdown_stops_the_waiting_turn(store_url, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    first, approvals, conversation_id = waiting_app(store_url, data, "code")
    assert approvals.held_here(conversation_id)
    first.registry.close_all(wait_s=30)  # no `held`: every running turn is stopped
    try:
        assert approvals.waiting(conversation_id) is None, "withdrawn: the turn was stopped"
        assert not approvals.held_here(conversation_id)
        owner = first.keeper.store.owner_of(conversation_id)
        assert first.keeper.store.get(owner, conversation_id).turn_state == "stopped"
    finally:
        first.keeper.store.close()
