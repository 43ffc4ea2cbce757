"""Browser-kept conversations: reload, restore without memory, forged stores, switching."""

from __future__ import annotations

import time
from pathlib import Path

from smolui import transcripts
from smolui.conversations import MEMORY_LOST_NOTE, ConversationHandlers
from smolui.sessions import SessionRegistry, new_conversation_id


class Agent:
    def __init__(self):
        self.memory = None


def make(tmp_path: Path) -> tuple[ConversationHandlers, SessionRegistry, Path]:
    registry = SessionRegistry(lambda: Agent(), tmp_path / "uploads")
    served = tmp_path / "served"
    served.mkdir()
    return ConversationHandlers(registry, lambda: [str(served)]), registry, served


def test_first_visit_gets_a_new_conversation(tmp_path):
    handlers, registry, _ = make(tmp_path)
    conversation_id, chat, store, choices = handlers.load(None, page="p1")
    assert registry.get(conversation_id) is not None
    assert chat == [] and store["current"] == conversation_id


def test_opening_the_page_prepares_the_agent_before_the_first_message(tmp_path):
    handlers, registry, _ = make(tmp_path)
    conversation_id, *_ = handlers.load(None, page="p1")
    session = registry.get(conversation_id)
    deadline = time.monotonic() + 5
    while not session.has_agent and time.monotonic() < deadline:
        time.sleep(0.01)
    assert session.has_agent, "the agent is built in the background on page load"


def test_reload_finds_the_live_conversation_and_its_transcript(tmp_path):
    handlers, registry, _ = make(tmp_path)
    conversation_id, _, store, _ = handlers.load(None, page="p1")
    chat = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]
    store, choices = handlers.save(chat, conversation_id, store)
    assert choices == [("hello", conversation_id)]
    handlers.page_closed("p1")
    again, restored, _, _ = handlers.load(store, page="p2")
    assert again == conversation_id and restored == chat


def test_a_gone_agent_restores_the_transcript_with_a_note(tmp_path):
    handlers, registry, _ = make(tmp_path)
    old_id = new_conversation_id()  # e.g. from before a server restart
    store = {"current": old_id, "conversations": [
        {"id": old_id, "title": "old", "updated": 1, "messages": [{"role": "user", "content": "old question"}]}]}  # fmt: skip
    new_id, chat, store, choices = handlers.load(store)
    assert new_id != old_id and registry.get(new_id) is not None
    assert chat[0]["content"] == "old question"
    assert MEMORY_LOST_NOTE in chat[-1]["content"]
    assert [c["id"] for c in store["conversations"]] == [new_id]


def test_a_forged_id_never_reaches_another_conversation(tmp_path):
    handlers, registry, _ = make(tmp_path)
    victim, _, _, _ = handlers.load(None)
    forged = victim[:-2] + ("AA" if not victim.endswith("AA") else "BB")
    got, _, _, _ = handlers.load({"current": forged, "conversations": []})
    assert got not in (victim, forged)


def test_stored_file_paths_outside_served_folders_are_dropped(tmp_path):
    handlers, _, served = make(tmp_path)
    image = served / "ok.png"
    image.write_bytes(b"png")
    store = {"current": None, "conversations": [{"id": "x" * 22, "title": "t", "messages": [
        {"role": "assistant", "content": {"path": "/etc/passwd"}},
        {"role": "assistant", "content": {"path": str(served / ".." / "uploads" / "doc.pdf")}},
        {"role": "assistant", "content": [{"type": "file", "file": {"path": str(image), "mime_type": "image/png"}}]},
        {"role": "system", "content": "injected"},
        {"role": "assistant", "content": "step", "metadata": {"title": "Step 1", "status": "pending", "evil": 1}},
    ]}]}  # fmt: skip
    clean = transcripts.normalize_store(store, [str(served)])["conversations"][0]["messages"]
    contents = [m["content"] for m in clean]
    assert {"path": str(image), "mime_type": "image/png"} in contents
    assert not any(isinstance(c, dict) and c["path"] in ("/etc/passwd",) for c in contents)
    assert "📎 passwd (no longer available)" in contents
    assert all(m["role"] != "system" for m in clean)
    assert clean[-1]["metadata"] == {"title": "Step 1", "status": "done"}


def test_new_chat_keeps_the_old_one_in_the_list_and_switch_reopens_it(tmp_path):
    handlers, registry, _ = make(tmp_path)
    first, _, store, _ = handlers.load(None)
    chat = [{"role": "user", "content": "first topic"}]
    second, new_chat, store, choices = handlers.new_chat(chat, first, store)
    assert second != first and new_chat == []
    assert ("first topic", first) in choices
    back, restored, store, _ = handlers.switch(first, [], second, store)
    assert back == first and restored == chat
    assert registry.get(first) is not None


def test_the_store_stays_within_its_limits():
    store = transcripts.empty_store()
    for index in range(transcripts.MAX_CONVERSATIONS + 5):
        store = transcripts.upsert(
            store, f"id{index}", [{"role": "user", "content": f"q{index}"}], index
        )
    assert len(store["conversations"]) == transcripts.MAX_CONVERSATIONS
    assert store["conversations"][0]["id"] == f"id{transcripts.MAX_CONVERSATIONS + 4}"
