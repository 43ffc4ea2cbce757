"""An export names the model of its conversation, as the page's header does: the model picked
for it, else the app's default (issue 31: exports named the app's default model). Real parts:
a SQLite store, the app's `AgentFactory` with scripted model files, the export route served by
FastAPI."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from smolui.api.downloads import Downloads
from smolui.render.durations import running_title
from smolui.render.export import to_json, to_markdown
from tests.smolui.test_conversation_model import App, answering


def test_an_export_names_the_model_picked_for_its_conversation(tmp_path: Path):
    specs = answering(tmp_path, "alpha", "from alpha"), answering(tmp_path, "beta", "from beta")
    app = App(f"sqlite:///{tmp_path / 'store.db'}", tmp_path / "data", specs)
    try:
        picked, _, state, _ = app.pages.new_chat({}, None, specs[1])
        plain, *_ = app.pages.new_chat(state, None)
        assert "from beta" in app.reply_to(picked, "hello")
        assert "from alpha" in app.reply_to(plain, "hello")
        config = app.chat.config
        downloads = Downloads(app.keeper, 0, lambda shown: app.pages.model_label(shown, config))
        server = FastAPI()
        server.include_router(downloads.router())
        client, owner = TestClient(server), state["owner"]

        def exported(conversation_id: str, fmt: str) -> str:
            link = downloads.export_link(owner, conversation_id, fmt)
            assert link is not None, "the conversation is stored"
            answer = client.get(link)
            assert answer.status_code == 200, answer.text
            return answer.text

        header = app.pages.model_label(picked, config)
        assert header == specs[1]  # what the page's header names
        assert "model: scripted:beta.json_" in exported(picked, "md")
        assert json.loads(exported(picked, "json"))["model"] == "scripted:beta.json"
        assert "model: the default_" in exported(plain, "md")  # no pick: the app's default
        assert json.loads(exported(plain, "json"))["model"] == "the default"
    finally:
        app.close()


def test_an_export_of_a_step_saved_while_it_ran_shows_its_title_without_the_timer_start():
    running = running_title("Step 2 · waiting for approval", 1764221859.0)
    saved = [{"role": "assistant", "content": "", "metadata": {"title": running, "id": "s"}}]
    assert "<summary>Step 2 · waiting for approval</summary>" in to_markdown(saved)
    meta = json.loads(to_json(saved))["messages"][0]["metadata"]
    assert meta["title"] == "Step 2 · waiting for approval"
