"""Export (Markdown, JSON) and settings (flags, environment, validation)."""

from __future__ import annotations

import json
import re

import pytest

from smolui.app.settings import Settings, settings_from_args
from smolui.render.export import export_name, export_pieces, to_json, to_markdown

HISTORY = [
    {"role": "user", "content": [{"type": "text", "text": "Plot it"}]},
    {"role": "assistant", "content": "", "metadata": {"title": "Step 1 · ran code", "id": "a-1",
                                                      "status": "done", "duration": 1.5, "log": "10 tokens"}},
    {"role": "assistant", "content": "```python\nprint(1)\n```", "metadata": {"title": "Code", "id": "a-1.c0",
                                                                           "parent_id": "a-1"}},
    {"role": "assistant", "content": [{"type": "file", "file": {"path": "/tmp/x/plot.png"}}]},
    {"role": "assistant", "content": "Here is the plot."},
]  # fmt: skip


def test_markdown_nests_children_inside_their_step():
    text = to_markdown(HISTORY, "Chat", model="scripted")
    assert "## You\n\nPlot it" in text and "## Agent" in text
    assert "<details><summary>Step 1 · ran code · 1.5 s · 10 tokens</summary>" in text
    inner = text.split("<summary>Step 1")[1].split("</details>\n\n</details>")[0]
    assert "<summary>Code</summary>" in inner and "print(1)" in inner
    assert "Attached file: `plot.png`" in text and text.rstrip().endswith("Here is the plot.")
    assert not re.search("[\U0001f300-\U0001faff]", text), "emoji need an emoji font"


def test_json_keeps_roles_text_files_and_metadata():
    document = json.loads(to_json(HISTORY, model="m"))
    assert document["model"] == "m"
    messages = document["messages"]
    assert messages[0] == {"role": "user", "text": "Plot it", "files": []}
    assert messages[2]["metadata"]["parent_id"] == "a-1"
    assert messages[3]["files"] == ["plot.png"]


def test_exports_come_in_pieces_for_the_route_to_stream_and_write_no_file(tmp_path):
    pieces = list(export_pieces(HISTORY, "md"))
    assert len(pieces) > 2, "one piece per message, not one string"
    assert "Plot it" in "".join(pieces) and export_name("md").endswith(".md")
    js = "".join(export_pieces(HISTORY, "json"))
    assert json.loads(js)["messages"][-1]["text"] == "Here is the plot."
    assert export_name("json").endswith(".json")


def test_flags_win_over_environment_which_wins_over_defaults():
    env = {"SMOLUI_MODEL": "hf:some/model", "SMOLUI_CONCURRENCY": "6", "GRADIO_SERVER_NAME": "0.0.0.0",
           "SMOLUI_TOOLS": "web_search, visit_webpage", "SMOLUI_SHARE": "0"}  # fmt: skip
    settings = settings_from_args(["--model", "scripted:demo", "--planning-interval", "3"], env)
    assert settings.model == "scripted:demo" and settings.concurrency == 6
    assert settings.host == "0.0.0.0" and settings.tools == ("web_search", "visit_webpage")
    assert settings.planning_interval == 3 and settings.share is False
    assert settings_from_args([], {}) == Settings()
    assert Settings().share is False and Settings().concurrency > 1


def test_auth_and_bad_values_are_checked(capsys):
    settings = settings_from_args(["--auth", "ann:pw"], {})
    assert settings.auth == ("ann", "pw") and "pw" not in repr(settings)
    for argv in (
        ["--auth", "nopassword"],
        ["--port", "0"],
        ["--agent-type", "magic"],
        ["--concurrency", "x"],
        ["--model", "scripted"],  # not a model string (scripted:demo is)
    ):
        with pytest.raises(SystemExit):
            settings_from_args(argv, {})
    assert "error" in capsys.readouterr().err


def test_settings_are_immutable():
    settings = Settings()
    with pytest.raises(AttributeError):
        settings.port = 1  # type: ignore[misc]
    assert settings.with_changes(port=8000).port == 8000 and settings.port == 7860
