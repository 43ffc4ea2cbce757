"""The model named where visitors see it (the header, the side panel, the exports) without a
server path, the header following the conversation's model, and an export without dead links
(issue 31's browser check), without a browser."""

from __future__ import annotations

import json
from types import SimpleNamespace

from smolui.handlers.chat import HandlerConfig
from smolui.render.downloads import ZIP_LABEL, render_downloads
from smolui.render.export import to_json, to_markdown
from smolui.render.model_names import is_demo_model, model_name
from smolui.render.panel import DEMO_LINE, TINY_LINE, capability_line, side_panel
from smolui.sessions.model_choice import DEFAULT_CHOICE
from smolui.uploads import UploadPolicy
from tests.smolui.test_model_picker import app_parts, send, specs  # noqa: F401 (fixtures)

PREFIX = "/smolui/files"


def test_only_the_demo_is_the_demo_and_a_scripted_file_is_named_without_its_path():
    assert is_demo_model("scripted:demo") and not is_demo_model("scripted:/srv/h7/replies.json")
    assert capability_line("scripted:demo") == DEMO_LINE
    assert capability_line("scripted:/srv/h7/replies.json") == "Scripted replies (replies.json)"
    assert capability_line("local") == TINY_LINE
    assert model_name("scripted:/srv/h7/replies.json") == "scripted:replies.json"
    assert model_name("scripted:demo") == "scripted:demo"
    assert model_name("openai:gpt-4o-mini") == "openai:gpt-4o-mini"
    panel = side_panel("scripted:/srv/h7/replies.json", None, "local", 3, [])
    assert panel.startswith("**Model:** scripted:replies.json  ")


def test_the_header_line_names_the_model_of_the_conversation_shown(app_parts, specs):  # noqa: F811
    chat, pages = app_parts
    config = HandlerConfig(
        UploadPolicy(), model_label=lambda: specs[0], model_available=lambda spec: True
    )
    first, *_ = pages.new_chat({}, None)
    picked, *_ = pages.new_chat({}, None, specs[1])
    assert pages.model_label(None, config) == specs[0]  # nothing open: the app's default
    assert pages.model_label(first, config) == specs[0]
    assert pages.model_label(picked, config) == specs[1]
    assert "from beta" in send(chat, picked, "hello")
    assert pages.model_label(picked, config) == specs[1]  # kept once it has turns
    gone = HandlerConfig(
        UploadPolicy(), model_label=lambda: specs[0], model_available=lambda spec: False
    )
    assert pages.model_label(picked, gone) == specs[0]  # no longer offered: the default runs


def test_a_pick_is_refused_only_where_a_conversation_keeps_its_model(app_parts, specs):  # noqa: F811
    chat, pages = app_parts
    assert pages.pick_model(specs[1], None)  # nothing started yet: nothing is kept
    assert pages.pick_model(specs[1], "not-a-conversation-id")
    conversation, *_ = pages.new_chat({}, None)
    assert pages.pick_model(specs[1], conversation)  # empty: it takes the pick
    assert "from beta" in send(chat, conversation, "hello")
    assert pages.pick_model(DEFAULT_CHOICE, conversation) is False
    # A mouse pick reaches the server twice: the second is not told again.
    assert pages.pick_model(DEFAULT_CHOICE, conversation) is True
    assert pages.pick_model(specs[0], conversation) is False  # another pick is told
    assert pages.pick_model(specs[1], conversation) is True  # its own model: nothing kept
    assert pages.pick_model(specs[0], conversation) is False


def _files_turn() -> list[dict]:
    files = [
        SimpleNamespace(name="notes.txt", size=12, batch="b1", key="k1", id=1),
        SimpleNamespace(name="data_v2.csv", size=2048, batch="b1", key="k1", id=2),
    ]
    return [
        {"role": "user", "content": "write two files"},
        render_downloads(files, PREFIX),
        {"role": "assistant", "content": "See [the guide](https://example.org/guide)."},
    ]


def test_an_export_names_the_files_a_turn_wrote_without_dead_links():
    exported = to_markdown(_files_turn(), model="scripted:/tmp/h7/replies.json")
    assert "- notes.txt · 12 B" in exported
    assert "- data\\_v2.csv · 2.0 KB" in exported
    assert "](notes.txt)" not in exported and PREFIX not in exported
    assert ZIP_LABEL not in exported and "all.zip" not in exported
    assert "[the guide](https://example.org/guide)" in exported  # links elsewhere stay
    assert "model: scripted:replies.json_" in exported and "/tmp/h7" not in exported


def test_a_json_export_holds_no_server_path_in_its_model_or_file_links():
    exported = json.loads(to_json(_files_turn(), model="scripted:/tmp/h7/replies.json"))
    assert exported["model"] == "scripted:replies.json"
    text = "\n".join(message["text"] for message in exported["messages"])
    assert "notes.txt · 12 B" in text and PREFIX not in text and "all.zip" not in text


def test_a_scripted_models_own_label_is_still_the_demo():
    assert capability_line("scripted-test") == DEMO_LINE  # the test harness's label
    assert capability_line("scripted") == DEMO_LINE
