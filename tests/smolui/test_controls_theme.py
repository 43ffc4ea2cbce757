"""Controls that follow the turn's state, and the page styles given at launch (no browser)."""

from __future__ import annotations

import threading
from pathlib import Path

import gradio
import pytest

from agents.models.scripted import ScriptedReply
from smolui.turns.pending import PendingTurn
from smolui.ui.controls import (
    CLEAR_QUESTION,
    NOTHING_RUNNING,
    NOTHING_TO_RETRY,
    RETRY_AFTER_STOP,
    RETRY_CANCELLED,
    retry_adapter,
    stop_adapter,
)
from smolui.ui.theme import CSS_PATH, JS_PATH, PAGE_CSS_PATH, apply_defaults
from tests.smolui.test_handlers import ANSWER, make_app, run
from tests.waiting import wait_for


@pytest.fixture
def notices(monkeypatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(gradio, "Info", lambda text, *args, **kwargs: shown.append(text))
    return shown


def test_stop_and_retry_with_nothing_to_act_on_say_so(tmp_path: Path, notices):
    handlers, _ = make_app(tmp_path, lambda: [ANSWER])
    stop_adapter(handlers)(None)
    shown, pending, button = retry_adapter(handlers)([], None)
    assert notices == [NOTHING_RUNNING, NOTHING_TO_RETRY]
    assert (shown, pending) == ([], None) and button.interactive is False


def test_stop_between_the_echo_and_the_turn_is_not_dropped(tmp_path: Path, notices):
    # On a busy server the queued turn reaches the conversation after the page showed the
    # message and enabled Stop: a Stop in that moment stops the turn as it arrives.
    handlers, registry = make_app(tmp_path, lambda: [ANSWER])
    conversation_id = registry.open(None).id
    echoed, sent = handlers.echo({"text": "compute", "files": []}, [], conversation_id)
    stop_adapter(handlers)(conversation_id)
    assert notices == [], "not 'Nothing is running': the message's turn is on its way"
    chat = list(handlers.run_turn(sent, echoed, conversation_id))[-1][0]
    assert chat[-1]["content"].endswith("Send a message to continue from here.")
    assert registry.get(conversation_id).agent.model.calls == []


def test_stop_cancels_a_retry_that_waits_for_the_stopped_turn(tmp_path: Path, notices):
    reached, gate = threading.Event(), threading.Event()  # the step in flight at the stop
    slow = ScriptedReply("Thought: slow", reached=reached, gate=gate)
    handlers, registry = make_app(tmp_path, lambda: [slow])
    echoed, sent = handlers.echo({"text": "compute", "files": []}, [])
    turn = handlers.run_turn(sent, echoed, None)
    history, conversation_id = next(turn)  # as the turn starts: more comes once the gate opens
    try:
        wait_for(reached.is_set, "the turn's model call began")
        stop_adapter(handlers)(conversation_id)  # the step in flight still ends
        shown, pending, button = retry_adapter(handlers)(history, conversation_id)
        assert pending is not None and button.interactive is True
        stop_adapter(handlers)(conversation_id)  # the waiting retry is called off
    finally:
        gate.set()
    assert notices == [RETRY_AFTER_STOP, RETRY_CANCELLED]
    stopped = list(turn)[-1][0]
    final = list(handlers.run_turn(pending, shown, conversation_id))
    assert len(final) == 1 and registry.get(conversation_id).busy is False
    assert final[-1][0] == stopped, "the stopped answer stays; nothing runs again"


def test_retry_after_a_turn_runs_again_and_enables_stop(tmp_path: Path, notices):
    handlers, _ = make_app(tmp_path, lambda: [ANSWER])
    history, conversation_id = run(handlers, "compute", None)[-1]
    shown, pending, button = retry_adapter(handlers)(history, conversation_id)
    assert pending == PendingTurn.retry_last() and button.interactive is True
    assert shown[-1] == {"role": "user", "content": "compute"}
    assert notices == []


def test_launch_options_add_styles_and_script_without_overriding_the_caller():
    options = apply_defaults({"css_paths": None})
    assert options["css_paths"] is None, "an explicit choice stays"
    assert options["js"] == JS_PATH.read_text(encoding="utf-8")
    assert apply_defaults({})["css_paths"] == [CSS_PATH] and CSS_PATH.stat().st_size > 0
    assert JS_PATH.read_text(encoding="utf-8").lstrip().startswith("() =>")
    head = apply_defaults({})["head"]  # the page-level phone layout, unscoped, in <head>
    assert head.startswith("<style>") and PAGE_CSS_PATH.read_text(encoding="utf-8") in head
    assert apply_defaults({"head": "<meta>"})["head"] == "<meta>"


def test_the_page_script_asks_the_clear_question():
    script = JS_PATH.read_text(encoding="utf-8")
    assert f'"{CLEAR_QUESTION}"' in script and "window.confirm(CLEAR_QUESTION)" in script
