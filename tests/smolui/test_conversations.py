"""Server-kept conversations: reload, restart, resume, owners, list, search, delete.

Real parts: a real conversation store (a SQLite file, or a real PostgreSQL server), real
CodeAgents with the in-process executor, scripted models that record what they were sent.
"""

from __future__ import annotations

import hashlib
import json
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from agents.loop.code_agent import CodeAgent
from agents.models.messages import content_text
from agents.models.scripted import ScriptedModel
from smolui.conversations import transcripts
from smolui.conversations.keeper import RESUME_NOTE_FOR_MODEL
from smolui.handlers.chat import NOT_SAVED_NOTICE, RESUMED_NOTICE, HandlerConfig
from smolui.handlers.conversations import INTERRUPTED_NOTE
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from smolui.uploads import UploadPolicy
from tests.smolui.app_process import AppProcess
from tests.smolui.stale_turn import age_running_state
from tests.waiting import wait_for


def by_task(rules: dict[str, str]):
    """A scripted reply chosen by the words of the latest task."""

    def reply(messages: list[dict]) -> str:
        tasks = [content_text(m.get("content")) for m in messages if m.get("role") == "user"]
        latest = next((t for t in reversed(tasks) if "New task:" in t), "")
        for keyword, answer in rules.items():
            if keyword in latest:
                return answer
        return "<code>\nfinal_answer('no rule')\n</code>"

    return reply


RULES = {
    "teal": "<code>\nfavourite = 'teal'\nfinal_answer('Noted teal.')\n</code>",
    "Which colour": "<code>\nfinal_answer('You named a colour.')\n</code>",
    "tomato": "<code>\nfinal_answer('Tomatoes like sun.')\n</code>",
}


class App(AppProcess):
    """One app process: registry, handlers, keeper over a store on `url` and `data`."""

    def __init__(self, url: str, data: Path):
        self.models: list[ScriptedModel] = []
        super().__init__(
            SessionRegistry(self._agent, data / "uploads", media_root=data / "media"),
            open_store(data, url, data / "uploads"),
            config=HandlerConfig(policy=UploadPolicy(), max_steps=3, executor_type="local"),
        )

    def _agent(self) -> CodeAgent:
        model = ScriptedModel([by_task(RULES)], loop=True)
        self.models.append(model)
        return CodeAgent([], model, executor_type="local", verbosity_level=-1)


@pytest.fixture
def data(tmp_path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def app(store_url, data):
    app = App(store_url, data)
    yield app
    app.close()


def texts(chat: list) -> list[str]:
    return [m["content"] for m in chat if isinstance(m.get("content"), str)]


def test_the_browser_keeps_only_its_owner_key_and_current_id(app):
    conversation_id, chat, state, choices = app.pages.load(None, page="p1")
    assert set(state) == {"owner", "current"} and state["current"] == conversation_id
    assert len(state["owner"]) >= 32 and chat == [] and choices == []
    chat = app.send("My favourite colour is teal.", conversation_id, chat)
    state, choices = app.pages.refresh(conversation_id, state)
    assert len(json.dumps(state)) < 120, "no transcript travels to the browser"
    assert [c[1] for c in choices] == [conversation_id]
    assert choices[0][0].startswith("My favourite colour is teal.")


def test_a_reload_shows_the_saved_chat(app):
    conversation_id, chat, state, _ = app.pages.load(None, page="p1")
    chat = app.send("My favourite colour is teal.", conversation_id, chat)
    app.pages.page_closed("p1")
    again, restored, _, _ = app.pages.load(state, page="p2")
    assert again == conversation_id and "Noted teal." in texts(restored)
    assert texts(restored) == texts(chat)


def test_after_a_restart_the_agent_is_rebuilt_from_stored_memory(store_url, data):
    first = App(store_url, data)
    conversation_id, chat, state, _ = first.pages.load(None)
    first.send("My favourite colour is teal.", conversation_id, chat)
    first.close()  # the process ends: nothing of it stays in memory

    second = App(store_url, data)
    again, restored, _, _ = second.pages.load(state)
    assert again == conversation_id and "Noted teal." in texts(restored)
    chat = second.send("Which colour did I name?", again, restored)
    assert "You named a colour." in texts(chat)
    assert RESUMED_NOTICE in "\n".join(texts(chat))
    sent = "\n".join(content_text(m.get("content")) for m in second.models[-1].calls[-1])
    assert "My favourite colour is teal." in sent and "Noted teal." in sent
    assert RESUME_NOTE_FOR_MODEL in sent, "the model is told the variables are gone"
    stored = second.keeper.find(state["owner"], again)
    assert [s["type"] for s in stored.memory["steps"]].count("TaskStep") == 2
    second.close()


def test_an_evicted_conversation_resumes_under_its_own_id(app):
    conversation_id, chat, state, _ = app.pages.load(None)
    chat = app.send("My favourite colour is teal.", conversation_id, chat)
    app.registry.evict(conversation_id, "test")
    chat = app.send("Which colour did I name?", conversation_id, chat)
    assert app.registry.get(conversation_id) is not None
    assert "You named a colour." in texts(chat) and RESUMED_NOTICE in "\n".join(texts(chat))


def test_forged_and_other_owners_ids_never_open_a_conversation(app):
    victim_id, chat, victim_state, _ = app.pages.load(None)
    app.send("My favourite colour is teal.", victim_id, chat)
    mallory = app.pages.load(None)[2]
    for wanted in (victim_id, victim_id[:-2] + "AA", "../../etc", None):
        got, shown, _, choices = app.pages.load({"owner": mallory["owner"], "current": wanted})
        assert got != victim_id and shown == [] and victim_id not in [c[1] for c in choices]
    got, shown, _, _ = app.pages.switch(victim_id, None, mallory)
    assert got != victim_id and shown == []
    app.pages.delete(victim_id, mallory)
    app.pages.rename("pwned", victim_id, mallory)
    assert app.pages.load(victim_state)[0] == victim_id
    assert app.keeper.find(victim_state["owner"], victim_id).title.startswith("My favourite")


def test_new_chat_switch_search_rename_and_delete(app):
    first, chat, state, _ = app.pages.load(None)
    app.send("My favourite colour is teal.", first, chat)
    second, chat, state, _ = app.pages.new_chat(state)
    app.send("How should I grow a tomato?", second, chat)
    _, choices = app.pages.refresh(second, state)
    assert [c[1] for c in choices] == [second, first], "newest first"
    assert [c[1] for c in app.pages.refresh(second, state, "tomatoes")[1]] == [second]
    back, restored, _, _ = app.pages.switch(first, second, state)
    assert back == first and "Noted teal." in texts(restored)
    _, choices = app.pages.rename("Colours", first, state)
    assert any(label.startswith("Colours") for label, _ in choices)
    folder = app.registry.get(first).upload_dir
    folder.mkdir(parents=True, exist_ok=True)
    fresh, shown, state, choices = app.pages.delete(first, state)
    assert fresh not in (first, second) and shown == [] and [c[1] for c in choices] == [second]
    assert not folder.exists() and app.registry.get(first) is None
    _, _, state, choices = app.pages.delete_all(state)
    assert choices == [] and app.keeper.list(state["owner"]) == []


def test_a_damaged_conversation_shows_a_clear_error_and_the_others_work(app):
    good, chat, state, _ = app.pages.load(None)
    app.send("How should I grow a tomato?", good, chat)
    bad, chat, state, _ = app.pages.new_chat(state)
    app.send("My favourite colour is teal.", bad, chat)
    app.registry.close_all()
    with app.keeper.store.session() as session, session.begin():
        session.execute(text("UPDATE conversations SET memory_version = 99 WHERE id = :i"),
                        {"i": bad})  # fmt: skip
    got, shown, _, choices = app.pages.switch(bad, good, state)
    assert got != bad and "damaged" in texts(shown)[-1]
    assert {c[1] for c in choices} >= {good, bad}
    again, restored, _, _ = app.pages.switch(good, got, state)
    assert again == good and "Tomatoes like sun." in texts(restored)


def test_a_turn_cut_short_by_a_restart_says_so(store_url, data):
    first = App(store_url, data)
    conversation_id, chat, state, _ = first.pages.load(None)
    first.send("My favourite colour is teal.", conversation_id, chat)
    session = first.registry.get(conversation_id)
    first.keeper.save(session, [{"role": "user", "content": "half done"}], "running")
    first.close()
    age_running_state(first.keeper.store, conversation_id)  # on PostgreSQL: long dead
    second = App(store_url, data)
    _, restored, _, _ = second.pages.load(state)
    assert INTERRUPTED_NOTE in texts(restored)[-1]
    second.close()


def test_when_the_database_goes_away_the_turn_finishes_and_says_so(postgres_server, tmp_path):
    url = postgres_server.create_database()
    app = App(url, tmp_path / "data")
    conversation_id, chat, state, _ = app.pages.load(None)
    app.keeper.store.engine.dispose()
    name = url.rsplit("/", 1)[1]
    import psycopg

    with psycopg.connect(postgres_server._dsn("postgres"), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    app.keeper.retry_s = 0.2
    chat = app.send("My favourite colour is teal.", conversation_id, chat)
    assert "Noted teal." in texts(chat) and NOT_SAVED_NOTICE in texts(chat)[-1]
    with psycopg.connect(postgres_server._dsn("postgres"), autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    open_store(tmp_path / "data", url).close()  # the database is back, migrated
    wait_for(
        lambda: app.keeper.find(state["owner"], conversation_id),
        "the save is retried until the database is back",
    )
    assert "Noted teal." in texts(app.keeper.find(state["owner"], conversation_id).messages)
    app.close()


def test_stored_file_paths_outside_served_folders_are_dropped(tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    image = served / "ok.png"
    image.write_bytes(b"png")
    messages = [
        {"role": "assistant", "content": {"path": "/etc/passwd"}},
        {"role": "assistant", "content": [{"type": "file", "file": {"path": str(image), "mime_type": "image/png"}}]},
        {"role": "system", "content": "injected"},
        {"role": "assistant", "content": "step", "metadata": {"title": "Step 1", "status": "pending", "evil": 1}},
    ]  # fmt: skip
    clean = transcripts.sanitize_messages(messages, [str(served)])
    contents = [m["content"] for m in clean]
    assert {"path": str(image), "mime_type": "image/png"} in contents
    assert "Attached file: `passwd` (no longer available)" in contents
    assert all(m["role"] != "system" for m in clean)
    assert clean[-1]["metadata"] == {"title": "Step 1", "status": "done"}


def test_a_page_that_goes_away_mid_turn_leaves_the_turn_running_for_the_next_page(app):
    from agents.models.scripted import ScriptedReply

    # The answer is held until the next page has looked: the turn is surely still running.
    gate = threading.Event()
    RULES["slow"] = ScriptedReply("<code>\nfinal_answer('Slow answer.')\n</code>", gate=gate)
    try:
        conversation_id, chat, state, _ = app.pages.load(None, page="p1")
        shown, pending = app.chat.echo({"text": "a slow question", "files": []}, chat)
        turn = app.chat.run_turn(pending, shown, conversation_id, "p1")
        next(turn)
        turn.close()  # the page reloads at once: gradio closes the generator
        app.pages.page_closed("p1")
        again, so_far, _, _ = app.pages.load(state, page="p2")
        assert again == conversation_id and "a slow question" in texts(so_far)
        assert "Slow answer." not in texts(so_far)
        assert list(app.chat.follow(conversation_id, "p3")) == [], "p3 was not shown the turn"
        gate.set()
        followed = list(app.chat.follow(conversation_id, "p2"))
        assert "Slow answer." in texts(followed[-1]), "the turn went on and the page sees its end"
        assert "Slow answer." in texts(app.keeper.find(state["owner"], again).messages)
        assert list(app.chat.follow(conversation_id, "p2")) == [], "followed once"
    finally:
        gate.set()
        RULES.pop("slow")


def test_uploads_are_recorded_and_come_back_after_a_restart(store_url, data, tmp_path):
    note = tmp_path / "notes.txt"
    note.write_text("The greenhouse used 300 litres of water.\n")
    first = App(store_url, data)
    conversation_id, chat, state, _ = first.pages.load(None)
    shown, pending = first.chat.echo({"text": "tomato notes", "files": [str(note)]}, chat)
    list(first.chat.run_turn(pending, shown, conversation_id))
    first.close()
    second = App(store_url, data)
    record = second.keeper.find(state["owner"], conversation_id)
    (upload,) = record.uploads
    assert upload.name == "notes.txt" and upload.kind == "text" and upload.size == 41
    assert upload.sha256 == hashlib.sha256(note.read_bytes()).hexdigest()
    assert (
        second.keeper.store.upload_dir(record.folder, record.owner) / upload.path
    ).read_bytes() == (note.read_bytes()), "the file stays in the data folder across restarts"
    second.pages.load(state)
    assert [f.display_name for f in second.registry.get(conversation_id).files] == ["notes.txt"]
    second.chat.clear(conversation_id)
    assert second.keeper.find(state["owner"], conversation_id).uploads == []
    second.close()


def test_retention_deletes_old_conversations_at_start(store_url, data):
    from smolui.app.settings import Settings
    from smolui.conversations.keeper import attach_store

    app = App(store_url, data)
    old, chat, state, _ = app.pages.load(None)
    app.send("How should I grow a tomato?", old, chat)
    recent, chat, state, _ = app.pages.new_chat(state)
    app.send("My favourite colour is teal.", recent, chat)
    with app.keeper.store.session() as session, session.begin():
        session.execute(text("UPDATE conversations SET updated_at = :t WHERE id = :i"),
                        {"t": datetime.now(UTC) - timedelta(days=10), "i": old})  # fmt: skip
    registry = SessionRegistry(lambda: None, data / "uploads")
    settings = Settings(retention_days=7, data_dir=str(data), database_url=store_url)
    keeper = attach_store(registry, settings, lambda: [], app.keeper.store)
    wait_for(lambda: len(keeper.list(state["owner"])) <= 1, "old conversations are deleted")
    assert [c.id for c in keeper.list(state["owner"])] == [recent]
    app.close()


def test_database_settings_come_from_flags_and_environment_and_hide_the_password():
    from smolui.app.settings import settings_from_args

    env = {"SMOLUI_DATABASE_URL": "postgresql+psycopg://app:hunter2@db/smolui",
           "SMOLUI_DATA_DIR": "/srv/smolui", "SMOLUI_RETENTION_DAYS": "30"}  # fmt: skip
    settings = settings_from_args([], env)
    assert settings.database_url.endswith("@db/smolui") and settings.data_dir == "/srv/smolui"
    assert settings.retention_days == 30 and "hunter2" not in repr(settings)
    assert settings_from_args(["--data-dir", "here"], env).data_dir == "here"
    with pytest.raises(SystemExit):
        settings_from_args(["--retention-days", "-1"], {})


@pytest.mark.slow  # a real gradio server
def test_the_data_folder_is_never_served(tmp_path):
    import urllib.error
    import urllib.request

    from smolui.app.gradio_ui import GradioUI
    from smolui.app.settings import Settings
    from tests.e2e.harness import free_port

    port = free_port()
    settings = Settings(model="scripted", executor="local", port=port,
                        upload_folder=str(tmp_path / "uploads"), data_dir=str(tmp_path / "data"))  # fmt: skip
    ui = GradioUI(lambda: None, settings=settings, model_label=lambda: "scripted")
    ui.launch(prevent_thread_lock=True, quiet=True)
    ui.open_store()  # once the page serves, as app.py does: the database is made after launch
    try:
        database = tmp_path / "data" / "smolui.db"
        assert database.is_file()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/gradio_api/file={database}")
        assert refused.value.code in (403, 404)
    finally:
        ui.close()
