"""Per-message retry, undo and edit: real CodeAgent, in-process executor, scripted model."""

from __future__ import annotations

import threading
from pathlib import Path

from agents.loop.code_agent import CodeAgent
from agents.memory.steps import TaskStep
from agents.models.scripted import ScriptedModel, ScriptedReply
from smolui.handlers.chat import ChatHandlers, HandlerConfig
from smolui.handlers.message_actions import (
    EMPTY_EDIT,
    NO_EDIT_WITH_FILES,
    NOTHING_TO_RETRY,
    NOTHING_TO_UNDO,
    ONLY_LAST_EDITABLE,
    RETRY_AFTER_STOP,
    RETRY_ALREADY_WAITING,
    STILL_RUNNING,
    MessageActions,
    last_user_turn,
    text_only,
)
from smolui.render.attachments import refused_chip
from smolui.render.panel import RUNNING
from smolui.sessions import SessionRegistry
from smolui.turns.pending import PendingTurn
from smolui.ui.message_actions import answering_panel
from smolui.uploads import UploadPolicy
from tests.waiting import wait_for

RULES = {
    "one": ["<code>\nkept = 1\nfinal_answer(f'one: {kept}')\n</code>"],
    "two": ["<code>\nkept = 2\nextra = 'x'\nfinal_answer(f'two: {kept}')\n</code>"],
    "three": ["<code>\nfinal_answer(f\"three: {kept} {'extra' in globals()}\")\n</code>"],
}


def by_task(rules: dict[str, list]) -> list:
    """One looping reply that answers by the last task's keyword, a reply per step."""
    counts: dict[str, int] = {}

    def reply(messages: list[dict]) -> str:
        text = "\n".join(_text(m.get("content")) for m in messages if m.get("role") == "user")
        task = text[text.rfind("New task:") :]
        keyword = next(k for k in rules if k in task)
        counts[keyword] = counts.get(keyword, 0) + 1
        return rules[keyword][min(counts[keyword], len(rules[keyword])) - 1]

    return [reply]


def _text(content) -> str:
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def make_app(tmp_path: Path, rules: dict | None = None):
    def factory() -> CodeAgent:
        model = ScriptedModel(by_task(rules or RULES), loop=True)
        return CodeAgent([], model, executor_type="local", verbosity_level=-1)

    registry = SessionRegistry(factory, tmp_path / "uploads", media_root=tmp_path / "media")
    config = HandlerConfig(policy=UploadPolicy(), max_steps=4, executor_type="local")
    chat = ChatHandlers(registry, config)
    return chat, MessageActions(chat), registry


def send(chat: ChatHandlers, text: str, conversation_id, history=None, files=None):
    shown, pending = chat.echo({"text": text, "files": files or []}, history or [])
    return list(chat.run_turn(pending, shown, conversation_id))[-1]


def run(chat: ChatHandlers, result, conversation_id):
    return list(chat.run_turn(result.pending, result.chat, conversation_id))[-1][0]


def texts(history: list[dict]) -> list[str]:
    return [m["content"] for m in history if isinstance(m.get("content"), str)]


def tasks(registry: SessionRegistry, conversation_id: str) -> list[str]:
    agent = registry.get(conversation_id).agent
    return [step.task for step in agent.memory.steps if isinstance(step, TaskStep)]


def test_text_only_reads_plain_and_normalized_contents():
    assert text_only("hi") == "hi"
    assert text_only([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]) == "ab"
    assert text_only([{"type": "file", "file": {"path": "/x.pdf"}}]) is None
    assert text_only({"path": "/x.pdf"}) is None


def test_last_user_turn_spans_attachments_and_text():
    chat = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": {"path": "/f.txt"}},
        {"role": "user", "content": "c"},
        {"role": "assistant", "content": "d"},
    ]
    assert last_user_turn(chat) == (2, 3)
    assert last_user_turn(chat[:2]) == (0, 0)
    assert last_user_turn([]) is None


def test_undo_takes_the_last_turn_out_of_chat_memory_and_variables(tmp_path):
    chat, actions, registry = make_app(tmp_path)
    history, conversation_id = send(chat, "one", None)
    after_one = list(history)
    history, _ = send(chat, "two", conversation_id, history)
    result = actions.undo(history, conversation_id)
    assert result.notice is None and result.pending is None
    assert result.chat == after_one
    assert tasks(registry, conversation_id) == ["one"]
    history, _ = send(chat, "three", conversation_id, result.chat)
    assert "three: 1 False" in texts(history), "variables are back to before 'two'"


def test_undo_on_an_empty_chat_says_so(tmp_path):
    _, actions, _ = make_app(tmp_path)
    result = actions.undo([], None)
    assert result.chat == [] and result.notice == NOTHING_TO_UNDO


def test_retry_after_undo_sends_the_previous_message_again(tmp_path):
    chat, actions, registry = make_app(tmp_path)
    history, conversation_id = send(chat, "one", None)
    history, _ = send(chat, "two", conversation_id, history)
    undone = actions.undo(history, conversation_id)
    result = actions.retry(undone.chat, conversation_id)
    assert result.pending == PendingTurn.message("one")
    assert result.chat == [{"role": "user", "content": "one"}]
    history = run(chat, result, conversation_id)
    assert texts(history).count("one: 1") == 1
    assert tasks(registry, conversation_id) == ["one"]


def test_retry_of_the_last_turn_reuses_its_request(tmp_path):
    chat, actions, registry = make_app(tmp_path)
    history, conversation_id = send(chat, "one", None)
    result = actions.retry(history, conversation_id)
    assert result.pending == PendingTurn.retry_last() and result.notice is None
    history = run(chat, result, conversation_id)
    assert texts(history).count("one: 1") == 1 and tasks(registry, conversation_id) == ["one"]
    assert actions.retry([], None).notice == NOTHING_TO_RETRY


def test_edit_of_the_last_message_answers_the_new_text(tmp_path):
    chat, actions, registry = make_app(tmp_path)
    history, conversation_id = send(chat, "one", None)
    history, _ = send(chat, "two", conversation_id, history)
    index = last_user_turn(history)[1]
    edited = [
        *history[:index],
        {"role": "user", "content": [{"type": "text", "text": "three"}]},
        *history[index + 1 :],
    ]
    result = actions.edit(edited, conversation_id, index, "three", "two")
    assert result.notice is None and result.pending == PendingTurn.message("three")
    assert result.chat[-1] == {"role": "user", "content": "three"}
    history = run(chat, result, conversation_id)
    assert "three: 1 False" in texts(history) and "two: 2" not in texts(history)
    assert tasks(registry, conversation_id) == ["one", "three"]


def test_edits_that_cannot_happen_restore_the_message(tmp_path):
    chat, actions, registry = make_app(tmp_path)
    history, conversation_id = send(chat, "one", None)
    history, _ = send(chat, "two", conversation_id, history)
    first = last_user_turn(history[:2])[1]
    edited = [{"role": "user", "content": "changed"}, *history[1:]]
    result = actions.edit(edited, conversation_id, first, "changed", "one")
    assert result.notice == ONLY_LAST_EDITABLE and result.chat == history
    last = last_user_turn(history)[1]
    result = actions.edit(history, conversation_id, last, "   ", "two")
    assert result.notice == EMPTY_EDIT and result.pending is None
    assert tasks(registry, conversation_id) == ["one", "two"], "memory untouched"


def test_a_message_with_attachments_cannot_be_edited(tmp_path):
    chat, actions, _ = make_app(tmp_path)
    note = tmp_path / "note.txt"
    note.write_text("hello")
    history, conversation_id = send(chat, "one", None, files=[str(note)])
    last = last_user_turn(history)[1]
    result = actions.edit(history, conversation_id, last, "other", "one")
    assert result.notice == NO_EDIT_WITH_FILES and result.pending is None


def test_actions_wait_for_a_running_turn(tmp_path):
    reached, gate = threading.Event(), threading.Event()  # the slow step runs until released
    rules = {
        "fast": ["<code>\nfinal_answer('soon')\n</code>"],
        "slow": [
            ScriptedReply("Thought: slow", reached=reached, gate=gate),
            "<code>\nfinal_answer('late')\n</code>",
        ],
    }
    chat, actions, registry = make_app(tmp_path, rules)
    history, conversation_id = send(chat, "fast", None)
    shown, pending = chat.echo({"text": "slow", "files": []}, history)
    turn = chat.run_turn(pending, shown, conversation_id)
    next(turn)
    finished = threading.Thread(target=lambda: list(turn))
    finished.start()
    try:
        wait_for(reached.is_set, "the slow turn's model call began")
        assert actions.undo(shown, conversation_id).notice == STILL_RUNNING
        assert actions.retry(shown, conversation_id).notice == STILL_RUNNING
        last = last_user_turn(shown)[1]
        assert actions.edit(shown, conversation_id, last, "x", "slow").notice == STILL_RUNNING
    finally:
        gate.set()
        finished.join(60)
    assert not finished.is_alive(), "the slow turn ended once released"
    assert tasks(registry, conversation_id) == ["fast", "slow"]


def test_a_retry_right_after_stop_waits_for_the_stopped_turn_and_then_runs(tmp_path):
    reached, gate = threading.Event(), threading.Event()  # the step in flight at the stop
    rules = {
        "slow": [
            ScriptedReply("Thought: slow", reached=reached, gate=gate),
            "<code>\nfinal_answer('retried')\n</code>",
        ],
    }
    chat, actions, registry = make_app(tmp_path, rules)
    shown, pending = chat.echo({"text": "slow", "files": []}, [])
    turn = chat.run_turn(pending, shown, None)
    _, conversation_id = next(turn)
    stopped: list = []
    first = threading.Thread(target=lambda: stopped.extend(turn))
    first.start()
    try:
        wait_for(reached.is_set, "the first turn's model call began")
        chat.stop(conversation_id)  # the model call in flight still ends its step
        queued = actions.retry(shown, conversation_id)
        assert queued.notice == RETRY_AFTER_STOP and queued.pending is not None
        assert actions.retry(shown, conversation_id).notice == RETRY_ALREADY_WAITING
    finally:
        gate.set()  # the stopped step ends now; the queued retry runs after it
    final = list(chat.run_turn(queued.pending, queued.chat, conversation_id))[-1][0]
    first.join(60)
    assert not first.is_alive(), "the stopped turn ended"
    assert "stopped" in " ".join(texts(stopped[-1][0])).lower()  # the first turn did stop
    assert texts(final)[0] == "slow" and "retried" in texts(final)
    assert not any("Stopped." in text for text in texts(final)), "the stopped answer is gone"
    assert tasks(registry, conversation_id) == ["slow"]
    assert registry.get(conversation_id).retry_after_stop is False


def test_a_turn_with_a_refused_file_is_not_resent_as_text(tmp_path):
    chat, actions, _ = make_app(tmp_path)
    history = [
        {"role": "user", "content": [refused_chip("x.pdf", "the content is not a PDF")]},
        {"role": "user", "content": "one"},
        {"role": "assistant", "content": "one: 1"},
    ]
    assert actions.retry(history, None).notice == NOTHING_TO_RETRY
    assert actions.edit(history, None, 1, "two", "one").notice == NO_EDIT_WITH_FILES


def test_a_started_retry_or_edit_shows_the_panel_answering(tmp_path):
    chat, actions, _ = make_app(tmp_path)
    panel = answering_panel(chat)
    history, conversation_id = send(chat, "one", None)
    assert RUNNING not in chat.side_panel(conversation_id)
    retried = actions.retry(history, conversation_id)
    assert RUNNING in panel(conversation_id, retried.pending)
    index = last_user_turn(history)[1]
    edited = actions.edit(history, conversation_id, index, "two", "one")
    assert edited.pending is not None and RUNNING in panel(conversation_id, edited.pending)
    assert not isinstance(panel(None, actions.retry([], None).pending), str), "left as it is"


def test_an_edited_first_message_retitles_the_conversation_unless_renamed(tmp_path):
    from smolui.conversations.keeper import ConversationKeeper
    from smolui.handlers.conversations import ConversationHandlers
    from smolui.store import open_store

    rules = {"apples": ["<code>\nfinal_answer('a')\n</code>"], "pears": RULES["one"]}
    rules |= {"plums": ["<code>\nfinal_answer('p')\n</code>"]}
    chat, actions, registry = make_app(tmp_path, rules)
    keeper = ConversationKeeper(open_store(tmp_path, None, tmp_path / "uploads"), lambda: [])
    registry.resume, registry.keep_files = keeper.resume, True
    chat.keeper = keeper
    pages = ConversationHandlers(registry, keeper)
    try:
        conversation_id, history, state, _ = pages.load(None, page="p1")
        history, _ = send(chat, "tell me about apples", conversation_id, history)

        def titles() -> list[str]:
            return [summary.title for summary in keeper.list(state["owner"])]

        assert titles() == ["tell me about apples"]
        index = last_user_turn(history)[1]
        edited = actions.edit(
            history, conversation_id, index, "now pears", history[index]["content"]
        )
        history = run(chat, edited, conversation_id)
        assert titles() == ["now pears"], "the title follows the message it was made from"
        pages.rename("My fruit", conversation_id, state)
        edited = actions.edit(
            history, conversation_id, index, "then plums", history[index]["content"]
        )
        run(chat, edited, conversation_id)
        assert titles() == ["My fruit"], "a title the person chose stays"
    finally:
        registry.close_all()
        keeper.store.close()


def test_after_undo_of_the_first_message_the_title_follows_the_next_unless_renamed(tmp_path):
    from smolui.conversations.keeper import ConversationKeeper
    from smolui.handlers.conversations import ConversationHandlers
    from smolui.store import open_store

    rules = {"apples": ["<code>\nfinal_answer('a')\n</code>"]}
    rules |= {"pears": ["<code>\nfinal_answer('p')\n</code>"]}
    rules |= {"plums": ["<code>\nfinal_answer('q')\n</code>"]}
    chat, actions, registry = make_app(tmp_path, rules)
    keeper = ConversationKeeper(open_store(tmp_path, None, tmp_path / "uploads"), lambda: [])
    registry.resume, registry.keep_files = keeper.resume, True
    chat.keeper = keeper
    pages = ConversationHandlers(registry, keeper)
    try:
        conversation_id, history, state, _ = pages.load(None, page="p1")

        def titles() -> list[str]:
            return [summary.title for summary in keeper.list(state["owner"])]

        history, _ = send(chat, "tell me about apples", conversation_id, history)
        assert titles() == ["tell me about apples"]
        history = actions.undo(history, conversation_id).chat
        assert history == []
        history, _ = send(chat, "now pears", conversation_id, history)
        assert titles() == ["now pears"], "the title follows the new first message"
        pages.rename("My fruit", conversation_id, state)
        history = actions.undo(history, conversation_id).chat
        send(chat, "then plums", conversation_id, history)
        assert titles() == ["My fruit"], "a title the person chose stays"
    finally:
        registry.close_all()
        keeper.store.close()
