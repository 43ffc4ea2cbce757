"""`python app.py` stopped (SIGTERM) while a turn runs: the turn ends at its step boundary and
its stopped state is saved before the store closes, so the conversation keeps the person's
message, the steps that ran and the stop note; the process exits 0 with no traceback. In this
process, with a step held open: `close_all` waits for the step's boundary, and a turn still in
its step past the wait is stopped where it is and saved."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

import smolui.sessions.shutdown as shutdown_module
from agents.loop.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel, ScriptedReply
from smolui.handlers.chat import HandlerConfig
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from smolui.turns.runner import STOP_NOTE
from smolui.uploads import UploadPolicy
from tests.e2e.harness import free_port
from tests.smolui.app_process import AppProcess
from tests.smolui.test_sigterm import _ready
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
STOPPED = "stopped: the server, the conversations and the store are closed"
TASK = "Count the stars, one step at a time"
# Each step waits a little for its model reply and never answers, so the turn is still running
# whenever the test looks (it would take hundreds of steps to end on its own).
WORKING_STEP = {
    "content": "Thought: still counting.\n<code>\nprint('counted')\n</code>",
    "delay": 1.0,
}


def _start_app(tmp_path: Path, port: int) -> subprocess.Popen:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"replies": [WORKING_STEP], "loop": True}), encoding="utf-8")
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", SMOLUI_LOG_LEVEL="INFO",
               SMOLUI_MAX_STEPS="500")  # fmt: skip
    options = ["--model", f"scripted:{replies}", "--executor", "local", "--port", str(port),
               "--data-dir", str(tmp_path / "data"), "--upload-folder", str(tmp_path / "uploads"),
               "--no-find-local-servers"]  # fmt: skip
    return subprocess.Popen(
        [sys.executable, "app.py", *options], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
    )


def _until_a_step_shows(lines) -> None:
    """Read the turn's event stream until a step of it has shown (the turn is running)."""
    for line in lines:
        if line.startswith("data:") and "reasoning_content" in line and "Step" in line:
            return
    raise AssertionError("the turn's stream ended before any step showed")


@pytest.mark.slow  # starts app.py (gradio) in its own process
def test_sigterm_mid_turn_saves_the_stopped_turn_before_the_store_closes(tmp_path: Path):
    port = free_port()
    process = _start_app(tmp_path, port)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _ready(f"{base}/readyz", process), "app.py answers /readyz",
                 timeout=180, poll=0.3)  # fmt: skip
        body = {"model": "smolui", "stream": True, "messages": [{"role": "user", "content": TASK}]}
        url = f"{base}/v1/chat/completions"
        with httpx.stream("POST", url, json=body, timeout=120) as reply:
            assert reply.status_code == 200, reply.read()
            _until_a_step_shows(reply.iter_lines())
            process.send_signal(signal.SIGTERM)  # the stream stays open: a client still follows
            _, errors = process.communicate(timeout=120)
    finally:
        if process.poll() is None:  # it ignored SIGTERM: the test fails, nothing is left running
            process.kill()
            process.communicate(timeout=30)
    assert process.returncode == 0, errors
    assert STOPPED in errors, errors
    assert "Traceback" not in errors and " ERROR " not in errors, errors

    store = open_store(tmp_path / "data")
    try:
        (summary,) = store.list("api:local")  # a key-less caller on this machine owns it
        stored = store.get("api:local", summary.id)
    finally:
        store.close()
    assert stored.turn_state == "stopped", stored.messages
    assert stored.messages[0] == {"role": "user", "content": TASK}
    shown = [m["content"] for m in stored.messages if isinstance(m.get("content"), str)]
    assert any(STOP_NOTE in text for text in shown), shown
    kinds = [step["type"] for step in (stored.memory or {}).get("steps", [])]
    assert "ActionStep" in kinds, f"the steps that ran are kept: {kinds}"


class HeldTurn:
    """The app's registry, store and handlers in this process, with one conversation whose
    first step's model call is held open until the test releases `gate`."""

    def __init__(self, tmp_path: Path):
        self.reached, self.gate = threading.Event(), threading.Event()
        held = ScriptedReply("Thought: counting.\n<code>\ncounted = 1\n</code>",
                             reached=self.reached, gate=self.gate)  # fmt: skip
        model = ScriptedModel([held, "<code>\nfinal_answer('never asked')\n</code>"])
        data = tmp_path / "data"
        registry = SessionRegistry(lambda: CodeAgent([], model, executor_type="local",
                                                     verbosity_level=-1), data / "uploads")  # fmt: skip
        config = HandlerConfig(policy=UploadPolicy(), max_steps=5, executor_type="local")
        self.app = AppProcess(registry, open_store(data), config=config)
        self.conversation, chat, _, _ = self.app.pages.load(None)
        self.turn = threading.Thread(target=self.app.send, args=(TASK, self.conversation, chat))
        self.closed: list[list[str]] = []

    def start(self) -> None:
        self.turn.start()
        wait_for(self.reached.is_set, "the turn's first step called its model")

    def close_all(self, wait_s: float) -> threading.Thread:
        """The server's shutdown, in a thread: `close_all` waits for the turn."""
        closer = threading.Thread(
            target=lambda: self.closed.append(self.app.registry.close_all(wait_s))
        )
        closer.start()
        return closer

    def stored(self):
        store = self.app.keeper.store
        return store.get(store.owner_of(self.conversation), self.conversation)

    def end(self) -> None:
        self.gate.set()
        self.turn.join(60)
        self.app.keeper.store.close()


def test_shutdown_waits_for_the_step_boundary_then_saves_the_stopped_turn(tmp_path, caplog):
    held = HeldTurn(tmp_path)
    caplog.set_level(logging.INFO, logger="smolui.sessions.shutdown")
    try:
        held.start()
        closer = held.close_all(wait_s=60)
        wait_for(lambda: "stopping 1 running turn" in caplog.text, "the turn was interrupted")
        assert closer.is_alive(), "close_all waits while the step's model call is in flight"
        held.gate.set()  # the model answers: the step runs its code and the turn stops after it
        closer.join(60)
        assert held.closed == [[]], "the turn ended before its conversation closed"
        stored = held.stored()
        assert stored.turn_state == "stopped"
        assert stored.messages[0] == {"role": "user", "content": TASK}
        assert any(STOP_NOTE in str(m.get("content")) for m in stored.messages)
        steps = [s for s in stored.memory["steps"] if s["type"] == "ActionStep"]
        assert len(steps) == 1 and "counted = 1" in str(steps[0]), "the step that ran is kept"
        assert held.app.registry.get(held.conversation) is None
    finally:
        held.end()


def test_a_turn_past_the_wait_is_stopped_where_it_is_and_saved(tmp_path, monkeypatch):
    # The step's model call is never answered in time: the turn is stopped as Stop does,
    # and what its page shows is saved before the conversation closes.
    monkeypatch.setattr(shutdown_module, "STOPPED_SAVE_S", 60.0)  # the save, however slow
    held = HeldTurn(tmp_path)
    try:
        held.start()
        held.close_all(wait_s=0.1).join(90)
        assert held.closed == [[]], "the stopped turn saved before its conversation closed"
        stored = held.stored()
        assert stored.turn_state == "stopped"
        assert stored.messages[0] == {"role": "user", "content": TASK}
        assert any(STOP_NOTE in str(m.get("content")) for m in stored.messages)
    finally:
        held.end()
