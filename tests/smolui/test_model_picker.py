"""The model picker (`--models`): settings, per-model agents, and which conversation changes.

Real parts: real CodeAgents with the in-process executor, a real session registry and
upload folders, scripted models read from JSON files the tests write.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.errors import AgentConfigError
from smolui.app.factory import AgentFactory
from smolui.app.settings import Settings, settings_from_args
from smolui.conversations.keeper import ConversationKeeper
from smolui.handlers.chat import ChatHandlers, HandlerConfig
from smolui.handlers.conversations import ConversationHandlers
from smolui.render.model_names import model_name
from smolui.sessions import SessionRegistry
from smolui.sessions.model_choice import DEFAULT_CHOICE, model_choices
from smolui.store import open_store
from smolui.uploads import UploadPolicy


def answering(folder: Path, name: str, answer: str) -> str:
    """A `scripted:` spec whose model always answers `answer`."""
    path = folder / f"{name}.json"
    reply = f"<code>\nfinal_answer({answer!r})\n</code>"
    path.write_text(json.dumps({"replies": [reply], "loop": True}), encoding="utf-8")
    return f"scripted:{path}"


class Loaders:
    """Records which specs got a loader (none is started by being made)."""

    def __init__(self):
        self.made: list[str] = []

    def __call__(self, spec: str) -> object:
        self.made.append(spec)
        return object()


@pytest.fixture
def specs(tmp_path: Path) -> tuple[str, str]:
    return answering(tmp_path, "alpha", "from alpha"), answering(tmp_path, "beta", "from beta")


@pytest.fixture
def app_parts(tmp_path: Path, specs: tuple[str, str]):
    """Chat and conversation handlers of an app on a real SQLite store."""
    settings = Settings(model=specs[0], models=specs, executor="local", max_steps=2)
    registry = SessionRegistry(AgentFactory(settings, loader=None), tmp_path / "uploads")
    keeper = ConversationKeeper(open_store(tmp_path, None, tmp_path / "uploads"), lambda: [])
    registry.resume, registry.keep_files = keeper.resume, True
    config = HandlerConfig(policy=UploadPolicy(), max_steps=2, executor_type="local")
    yield ChatHandlers(registry, config, keeper), ConversationHandlers(registry, keeper)
    registry.close_all()
    keeper.store.close()


def send(chat: ChatHandlers, conversation_id: str, text: str) -> str:
    shown, pending = chat.echo({"text": text, "files": []}, [])
    final, _ = list(chat.run_turn(pending, shown, conversation_id))[-1]
    return "\n".join(str(message["content"]) for message in final)


def test_models_come_from_the_flag_or_the_environment():
    flag = settings_from_args(["--models", "local, scripted:demo,openai:gpt-4o-mini"], {})
    assert flag.models == ("local", "scripted:demo", "openai:gpt-4o-mini")
    env = settings_from_args([], {"SMOLUI_MODELS": "scripted:demo,local"})
    assert env.models == ("scripted:demo", "local") and env.model == "local"
    assert settings_from_args([], {}).models == ()


def test_an_unknown_spec_is_refused_at_start(capsys):
    with pytest.raises(SystemExit):
        settings_from_args(["--models", "local,gpt-4o"], {})
    error = capsys.readouterr().err
    assert "--models" in error and "'gpt-4o'" in error


def test_the_picker_lists_the_default_first_once():
    choices = model_choices("local", ("scripted:demo", "local", "scripted:demo"))
    assert choices == [("local (default)", DEFAULT_CHOICE), ("scripted:demo", "scripted:demo")]


def test_the_factory_builds_the_chosen_model(tmp_path: Path, specs):
    settings = Settings(model=specs[0], models=specs, executor="local")
    factory = AgentFactory(settings, loader=None)
    default = factory(tmp_path / "a")
    picked = factory(tmp_path / "b", specs[1])
    assert default.model.model_id == "scripted:alpha.json"
    assert picked.model.model_id == "scripted:beta.json"
    assert picked.run("hi", stream=False) == "from beta"
    with pytest.raises(AgentConfigError, match="not one of"):
        factory(tmp_path / "c", answering(tmp_path, "gamma", "no"))


def test_each_model_gets_its_own_loader_made_on_first_pick():
    loaders = Loaders()
    default_loader = object()
    settings = Settings(model="local", models=("local", "hf:a/b", "openai:c"))
    factory = AgentFactory(settings, default_loader, make_loader=loaders)
    assert loaders.made == []  # nothing is loaded at start
    assert factory.loader_for(None) is default_loader
    assert factory.loader_for("local") is default_loader
    first = factory.loader_for("hf:a/b")
    assert factory.loader_for("hf:a/b") is first and loaders.made == ["hf:a/b"]


def test_a_new_chat_uses_the_picked_model_and_the_panel_says_so(app_parts, specs):
    chat, pages = app_parts
    first, *_ = pages.new_chat({}, None)
    picked, *_ = pages.new_chat({}, None, specs[1])
    assert "from alpha" in send(chat, first, "hello")
    assert "from beta" in send(chat, picked, "hello")
    assert f"`{model_name(specs[1])}`" in chat.side_panel(picked)


def test_a_conversation_with_history_keeps_its_model(app_parts, specs):
    chat, pages = app_parts
    conversation, *_ = pages.new_chat({}, None)
    assert "from alpha" in send(chat, conversation, "hello")
    assert not pages.pick_model(specs[1], conversation)
    assert "from alpha" in send(chat, conversation, "again")
    assert f"`{model_name(specs[1])}`" not in chat.side_panel(conversation)


def test_an_empty_conversation_takes_the_picked_model(app_parts, specs):
    chat, pages = app_parts
    conversation, *_ = pages.new_chat({}, None)
    assert pages.pick_model(specs[1], conversation)  # its prepared agent is replaced
    assert "from beta" in send(chat, conversation, "hello")
    assert pages.pick_model(DEFAULT_CHOICE, conversation) is False  # it has history now
