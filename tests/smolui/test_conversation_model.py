"""The model picked for a conversation is stored with it and comes back when it resumes.

Real parts: a SQLite file and the real PostgreSQL server, the app's `AgentFactory` building
real CodeAgents (local executor) from `scripted:` model specs the tests write.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest
from sqlalchemy import text

from smolui.app.factory import AgentFactory
from smolui.app.settings import Settings
from smolui.handlers.chat import HandlerConfig
from smolui.render.model_names import model_name
from smolui.sessions import SessionRegistry
from smolui.sessions.model_choice import DEFAULT_CHOICE, model_offered
from smolui.store import database, migrate, open_store
from smolui.uploads import UploadPolicy
from tests.smolui.app_process import AppProcess


def answering(folder: Path, name: str, answer: str) -> str:
    path = folder / f"{name}.json"
    reply = f"<code>\nfinal_answer({answer!r})\n</code>"
    path.write_text(json.dumps({"replies": [reply], "loop": True}), encoding="utf-8")
    return f"scripted:{path}"


class App(AppProcess):
    """One app process with a model picker, on a store at `url` and a data folder."""

    def __init__(self, url: str, data: Path, specs: tuple[str, ...]):
        settings = Settings(model=specs[0], models=specs, executor="local", max_steps=2)
        config = HandlerConfig(
            policy=UploadPolicy(),
            max_steps=2,
            executor_type="local",
            model_label=lambda: "the default",
            model_available=partial(model_offered, default=specs[0], models=specs),
        )
        super().__init__(
            SessionRegistry(AgentFactory(settings, loader=None), data / "uploads"),
            open_store(data, url),
            config=config,
        )

    def reply_to(self, conversation_id: str, words: str) -> str:
        """The chat's text after sending `words` in a new page of `conversation_id`."""
        final = self.send(words, conversation_id, [])
        return "\n".join(str(message["content"]) for message in final)


@pytest.fixture
def specs(tmp_path: Path) -> tuple[str, str]:
    return answering(tmp_path, "alpha", "from alpha"), answering(tmp_path, "beta", "from beta")


def test_a_resumed_conversation_is_rebuilt_with_its_picked_model(store_url, tmp_path, specs):
    data = tmp_path / "data"
    first = App(store_url, data, specs)
    picked, _, state, _ = first.pages.new_chat({}, None, specs[1])
    plain, _, _, _ = first.pages.new_chat(state, None)
    assert "from beta" in first.reply_to(picked, "hello")
    assert "from alpha" in first.reply_to(plain, "hello")
    first.close()  # a restart: no agent stays in memory

    second = App(store_url, data, specs)
    assert second.keeper.find(state["owner"], picked).model == specs[1]
    assert second.keeper.find(state["owner"], plain).model is None
    opened, *_ = second.pages.load({**state, "current": picked})
    assert opened == picked and second.pages.model_of(picked) == specs[1], "the picker shows it"
    assert "from beta" in second.reply_to(picked, "again")
    assert f"`{model_name(specs[1])}`" in second.chat.side_panel(picked)
    second.pages.switch(plain, picked, state)
    assert second.pages.model_of(plain) == DEFAULT_CHOICE
    assert "from alpha" in second.reply_to(plain, "again")
    second.close()


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_a_conversation_whose_model_is_gone_falls_back_to_the_default(store_url, tmp_path, specs):
    data = tmp_path / "data"
    first = App(store_url, data, specs)
    picked, _, state, _ = first.pages.new_chat({}, None, specs[1])
    assert "from beta" in first.reply_to(picked, "hello")
    first.close()

    second = App(store_url, data, specs[:1])  # restarted without the picked model
    assert f"`{model_name(specs[1])}`" not in second.chat.side_panel(picked), (
        "the panel shows the default"
    )
    chat = second.reply_to(picked, "again")
    assert f"The model `{specs[1]}` used here is not available now; using `the default`." in chat
    assert "from alpha" in chat and "from beta" not in chat, "the turn ran on the default"
    assert second.keeper.find(state["owner"], picked).model is None, "the switch is saved"
    assert "not available" not in second.reply_to(picked, "once more"), "said once"
    second.close()


def test_the_model_migration_keeps_conversations_saved_before_it(store_url, tmp_path):
    engine = database.create_engine(database.database_url(tmp_path, store_url))
    migrate.upgrade(engine, "0002")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO conversations (id, owner, title, created_at, updated_at, folder, "
                "messages, memory, turn_state, search_text) VALUES ('c1', 'alice', 'Old', "
                "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 'f1', '[]', NULL, 'done', '')"
            )
        )
    engine.dispose()
    store = open_store(tmp_path, store_url)  # migrates to the newest schema
    assert migrate.current_revision(store.engine) not in (None, "0002")
    old = store.get("alice", "c1")
    assert old.title == "Old" and old.model is None
    assert store.save("alice", "c1", folder="f1", messages=[], memory=None, model="local")
    assert store.get("alice", "c1").model == "local"
    store.close()
