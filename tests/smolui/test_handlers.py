"""Turn handlers without a browser: real CodeAgent, in-process executor, scripted model."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from agents.errors import ProviderAuthenticationError
from agents.loop.code_agent import CodeAgent
from agents.memory.steps import TaskStep
from agents.models.scripted import ScriptedModel, ScriptedReply
from smolui.handlers.chat import ChatHandlers, HandlerConfig
from smolui.sessions import SessionRegistry
from smolui.turns.pending import PendingTurn
from smolui.uploads import UploadPolicy
from tests.waiting import GENEROUS_S, wait_for

ANSWER = "<code>\nfinal_answer('done: ' + str(6 * 7))\n</code>"


def make_app(
    tmp_path: Path, replies_for_agent, piece_delay: float = 0.0
) -> tuple[ChatHandlers, SessionRegistry]:
    def factory() -> CodeAgent:
        model = ScriptedModel(replies_for_agent(), loop=True, piece_delay=piece_delay)
        return CodeAgent([], model, executor_type="local", verbosity_level=-1, stream_outputs=True)

    registry = SessionRegistry(factory, tmp_path / "uploads", media_root=tmp_path / "media")
    config = HandlerConfig(policy=UploadPolicy(), max_files=2, max_steps=4, executor_type="local")
    return ChatHandlers(registry, config), registry


def run(handlers: ChatHandlers, text: str, conversation_id: str | None, history=None, files=None):
    shown, pending = handlers.echo({"text": text, "files": files or []}, history or [])
    updates = list(handlers.run_turn(pending, shown, conversation_id))
    return updates


def start_turn(handlers: ChatHandlers, text: str):
    """Send `text` in a new conversation; return the running turn and its conversation id."""
    shown, pending = handlers.echo({"text": text, "files": []}, [])
    turn = handlers.run_turn(pending, shown, None)
    _, conversation_id = next(turn)
    return turn, conversation_id


def texts(history: list[dict]) -> list[str]:
    return [m["content"] for m in history if isinstance(m.get("content"), str)]


def test_a_turn_streams_a_pending_step_then_the_answer(tmp_path):
    # The model streams slowly, so the running step is seen before it finishes.
    handlers, registry = make_app(tmp_path, lambda: [ANSWER], piece_delay=0.05)
    updates = run(handlers, "compute", None)
    first_chat, conversation_id = updates[0]
    assert first_chat[0] == {"role": "user", "content": "compute"}
    statuses = [
        (m.get("metadata") or {}).get("status") for chat, _ in updates[:-1] for m in chat[1:]
    ]
    assert "pending" in statuses
    final_chat, same_id = updates[-1]
    assert same_id == conversation_id and registry.get(conversation_id) is not None
    assert "done: 42" in texts(final_chat)
    assert "1 step" in texts(final_chat)[-1]
    assert not any((m.get("metadata") or {}).get("status") == "pending" for m in final_chat)


def test_provider_failure_is_a_readable_message_without_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-abcdefghijklmnop1234")
    error = ProviderAuthenticationError("401 for key sk-live-abcdefghijklmnop1234")
    handlers, _ = make_app(tmp_path, lambda: [ScriptedReply(error=error)])
    chat, _ = run(handlers, "hi", None)[-1]
    shown = "\n".join(texts(chat))
    assert "refused the credentials" in shown
    assert "sk-live" not in shown and "Traceback" not in shown
    assert "failed" in texts(chat)[-1]


def test_an_unexpected_server_error_gets_a_reference_not_details(tmp_path, caplog):
    def broken_factory():
        raise RuntimeError("database password is hunter2")

    registry = SessionRegistry(broken_factory, tmp_path / "uploads")
    handlers = ChatHandlers(registry, HandlerConfig(policy=UploadPolicy()))
    chat, _ = run(handlers, "hi", None)[-1]
    shown = "\n".join(texts(chat))
    assert "Something went wrong on the server" in shown and "reference" in shown
    assert "hunter2" not in shown
    assert "hunter2" in caplog.text, "details go to the server log"


def test_second_turn_continues_the_same_agent(tmp_path):
    handlers, registry = make_app(
        tmp_path,
        lambda: [
            "<code>\nfruit = 'fig'\nfinal_answer('ok')\n</code>",
            "<code>\nfinal_answer(fruit)\n</code>",
        ],
    )
    chat, conversation_id = run(handlers, "remember fig", None)[-1]
    chat, _ = run(handlers, "which fruit?", conversation_id, chat)[-1]
    assert texts(chat).count("fig") == 1
    agent = registry.get(conversation_id).agent
    assert [s.task for s in agent.memory.steps if isinstance(s, TaskStep)] == [
        "remember fig",
        "which fruit?",
    ]


def test_retry_replaces_the_last_turn_in_chat_and_memory(tmp_path):
    handlers, registry = make_app(
        tmp_path,
        lambda: [
            "<code>\nfinal_answer('first try')\n</code>",
            "<code>\nfinal_answer('second try')\n</code>",
        ],
    )
    chat, conversation_id = run(handlers, "answer me", None)[-1]
    shown, pending = handlers.retry(chat, conversation_id)
    assert (
        shown == [{"role": "user", "content": "answer me"}] and pending == PendingTurn.retry_last()
    )
    chat, _ = list(handlers.run_turn(pending, shown, conversation_id))[-1]
    assert "second try" in texts(chat) and "first try" not in texts(chat)
    agent = registry.get(conversation_id).agent
    assert [s.task for s in agent.memory.steps if isinstance(s, TaskStep)] == ["answer me"]


def test_stop_ends_the_turn_at_once_and_the_agent_at_its_step(tmp_path):
    # The model call is held open until the test lets it answer: the turn must end before that.
    reached, gate = threading.Event(), threading.Event()
    held = ScriptedReply("Thought: slow", reached=reached, gate=gate)
    handlers, registry = make_app(tmp_path, lambda: [held, ANSWER])
    turn, conversation_id = start_turn(handlers, "go")
    updates: list = []
    page = threading.Thread(target=lambda: updates.extend(turn), daemon=True)
    page.start()
    try:
        assert reached.wait(GENEROUS_S), "the model call began"
        handlers.stop(conversation_id)
        page.join(GENEROUS_S)
        assert not page.is_alive(), "the page is released before the model call ends"
    finally:
        gate.set()
    chat, _ = updates[-1]
    assert any("Stopped." in t for t in texts(chat))
    session = registry.get(conversation_id)
    assert session.begin_turn(wait=GENEROUS_S), (
        "the agent finishes its step, then the conversation is free"
    )
    session.end_turn()
    assert len(session.agent.model.calls) == 1


def test_a_busy_conversation_says_so(tmp_path):
    handlers, registry = make_app(tmp_path, lambda: [ANSWER])
    session = registry.open(None)
    assert session.begin_turn()
    import smolui.handlers.chat as handlers_module

    handlers_module.BUSY_WAIT_S, saved = 0.1, handlers_module.BUSY_WAIT_S
    try:
        chat, _ = run(handlers, "hello", session.id)[-1]
    finally:
        handlers_module.BUSY_WAIT_S = saved
        session.end_turn()
    assert "still busy" in texts(chat)[-1]


def test_uploads_are_ingested_and_refusals_shown(tmp_path):
    good = tmp_path / "notes.txt"
    good.write_text("alpha beta", encoding="utf-8")
    bad = tmp_path / "tool.exe"
    bad.write_bytes(b"MZ\x00\x00")
    handlers, registry = make_app(tmp_path, lambda: [ANSWER])
    chat, conversation_id = run(handlers, "read", None, files=[str(good), str(bad)])[-1]
    shown = "\n".join(texts(chat))
    assert "Attached notes.txt" in shown and "Could not attach tool.exe" in shown
    session = registry.get(conversation_id)
    assert [f.display_name for f in session.files] == ["notes.txt"]
    task = session.agent.memory.steps[0].task
    assert "notes.txt" in task and task.rstrip().endswith("read")


def test_too_many_files_are_refused_with_a_note(tmp_path):
    paths = []
    for index in range(3):
        path = tmp_path / f"f{index}.txt"
        path.write_text("x", encoding="utf-8")
        paths.append(str(path))
    handlers, _ = make_app(tmp_path, lambda: [ANSWER])
    chat, _ = run(handlers, "read", None, files=paths)[-1]
    assert any("not attached: f2.txt" in t for t in texts(chat))


@pytest.mark.parametrize("message", [None, {"text": "  ", "files": []}])
def test_empty_messages_do_nothing(tmp_path, message):
    handlers, registry = make_app(tmp_path, lambda: [ANSWER])
    shown, pending = handlers.echo(message, [])
    assert shown == [] and pending is None
    assert list(handlers.run_turn(pending, shown, None)) == [([], None)]
    assert len(registry) == 0


def test_stream_to_gradio_yields_the_turn_as_it_grows(tmp_path):
    from smolui.app.gradio_ui import stream_to_gradio

    agent = CodeAgent(
        [],
        ScriptedModel(["<code>\nprint('hi')\n</code>", ANSWER]),
        executor_type="local",
        verbosity_level=-1,
        stream_outputs=True,
    )
    snapshots = list(stream_to_gradio(agent, "compute", media_folder=tmp_path))
    assert snapshots[0][0]["metadata"]["status"] == "pending"
    final = snapshots[-1]
    assert "done: 42" in texts(final) and "2 steps" in texts(final)[-1]
    assert [
        m["metadata"]["title"]
        for m in final
        if "parent_id" not in m.get("metadata", {"parent_id": 0})
    ] == ["Step 1 · ran code", "Step 2 · ran code · answered"]


def test_retry_takes_back_the_variables_of_the_last_turn(tmp_path):
    handlers, registry = make_app(
        tmp_path,
        lambda: [
            "<code>\nkept = 1\nfinal_answer('first')\n</code>",
            "<code>\nkept = 2\nextra = 'x'\nfinal_answer('second')\n</code>",
            "<code>\nfinal_answer(f\"{kept} {'extra' in globals()}\")\n</code>",
        ],
    )
    chat, conversation_id = run(handlers, "one", None)[-1]
    chat, _ = run(handlers, "two", conversation_id, chat)[-1]
    shown, pending = handlers.retry(chat, conversation_id)
    chat, _ = list(handlers.run_turn(pending, shown, conversation_id))[-1]
    assert "1 False" in texts(chat), "the retried turn sees the variables as before 'two'"


def test_clear_during_a_turn_leaves_nothing_of_it_behind(tmp_path):
    # Clear comes while the model call is held open; the call answers only once Clear has
    # asked the turn to stop, so the step it would record ends after the reset was requested.
    reached, gate = threading.Event(), threading.Event()
    held = ScriptedReply("Thought: slow\n<code>\nleftover = 1\n</code>", reached=reached, gate=gate)
    handlers, registry = make_app(tmp_path, lambda: [held, ANSWER])
    turn, conversation_id = start_turn(handlers, "go")
    finished = threading.Thread(target=lambda: list(turn), daemon=True)
    finished.start()
    session = registry.get(conversation_id)
    cleared: list = []
    clearing = threading.Thread(
        target=lambda: cleared.append(handlers.clear(conversation_id)), daemon=True
    )
    try:
        assert reached.wait(GENEROUS_S), "the model call began"
        clearing.start()
        wait_for(session.stop_requested.is_set, "Clear asks the running turn to stop")
    finally:
        gate.set()
    clearing.join(GENEROUS_S)
    finished.join(GENEROUS_S)
    assert cleared == [[]]
    assert session.agent.memory.steps == [], "the stopped step was not recorded after the reset"
    assert "leftover" not in session.agent.executor.namespace
    assert not session.busy


def test_long_chats_get_fewer_page_updates(tmp_path, monkeypatch):
    from smolui.turns import runner as module

    assert module.update_interval(0) == module.UPDATE_INTERVAL_S
    assert module.update_interval(250) == pytest.approx(0.5)
    assert module.update_interval(100_000) == module.MAX_UPDATE_INTERVAL_S
    asked = []
    monkeypatch.setattr(module, "update_interval", lambda n: asked.append(n) or 0.05)
    handlers, _ = make_app(tmp_path, lambda: [ANSWER])
    earlier = [{"role": "user", "content": f"message {i}"} for i in range(30)]
    run(handlers, "compute", None, history=earlier)
    assert asked == [31], "the interval follows the chat's length (30 earlier + the new message)"
