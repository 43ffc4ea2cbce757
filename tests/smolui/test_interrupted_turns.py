"""A turn whose process died leaves its conversation "running" with an unanswered message: the
next turn, through `/v1` as through the page, keeps the interrupted note in the stored chat,
once, before the new question; a turn that may still run elsewhere is never marked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import openai

from smolui.api.access import LOCAL_OWNER
from smolui.conversations.interrupted import INTERRUPTED_NOTE, STALE_AFTER_S, is_interrupted
from smolui.sessions.session import new_conversation_id
from smolui.store import StoredConversation, open_store
from tests.smolui.api_app import served_app

KILLED = "How much did bay four weigh?"


def _ask(base: str, text: str, conversation: str) -> None:
    api = openai.OpenAI(base_url=base + "v1", api_key="unused", max_retries=0, timeout=120)
    api.chat.completions.create(model="smolui", messages=[{"role": "user", "content": text}],
                                extra_body={"conversation_id": conversation})  # fmt: skip


def _texts(chat: list) -> list[str]:
    return [m["content"] for m in chat if isinstance(m.get("content"), str)]


def test_a_v1_turn_after_a_killed_turn_keeps_the_note_once_before_its_question(tmp_path):
    conversation = new_conversation_id()
    gone = open_store(tmp_path)  # the process that ran the turn, killed mid-way
    gone.save(LOCAL_OWNER, conversation, folder="killedturn01", memory=None, turn_state="running",
              messages=[{"role": "user", "content": KILLED}])  # fmt: skip
    gone.close()
    with served_app(tmp_path) as (ui, base):
        _ask(base, "Are you still there?", conversation)
        _ask(base, "And bay five?", conversation)
        stored = ui.keeper.find(LOCAL_OWNER, conversation)
    said = _texts(stored.messages)
    notes = [i for i, text in enumerate(said) if INTERRUPTED_NOTE in text]
    assert len(notes) == 1, said
    assert said.index(KILLED) < notes[0] < said.index("Are you still there?")
    assert stored.turn_state == "done"


def _record(state: str, age_s: float) -> StoredConversation:
    now = datetime.now(UTC)
    return StoredConversation(id="c", owner="o", title="t", created=now, folder="f",
                              updated=now - timedelta(seconds=age_s), messages=[],
                              memory=None, turn_state=state)  # fmt: skip


def test_on_a_shared_database_only_a_long_silent_running_state_is_interrupted():
    fresh, old = _record("running", 5), _record("running", STALE_AFTER_S + 5)
    assert not is_interrupted(fresh, None, shared=True)  # maybe live on another replica
    assert is_interrupted(old, None, shared=True)
    assert is_interrupted(fresh, None, shared=False)  # SQLite: no other process runs it
    assert not is_interrupted(_record("done", STALE_AFTER_S + 5), None, shared=True)


def test_a_turn_running_in_this_process_is_never_interrupted():
    running = SimpleNamespace(live_turn=SimpleNamespace(done=False))
    ended = SimpleNamespace(live_turn=SimpleNamespace(done=True))
    old = _record("running", STALE_AFTER_S + 5)
    assert not is_interrupted(old, running, shared=True)
    assert not is_interrupted(old, running, shared=False)
    assert is_interrupted(old, ended, shared=False)
