"""An export names the model of the conversation it exports, as the header does (issue 31: it
named the app's default model after another was picked for the conversation)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import bot, send, wait_turn_done
from tests.e2e.test_header_model_e2e import HEADER, pick, two_models  # noqa: F401 (fixture)

pytestmark = pytest.mark.e2e


def exported(page, kind: str) -> str:
    """The text of the export the page's "↓ Markdown" or "↓ JSON" downloads."""
    with page.expect_download() as started:
        page.locator(f".export-{kind}").click()
    return Path(started.value.path()).read_text(encoding="utf-8")


def test_an_export_names_the_model_picked_for_the_conversation(two_models, open_page):  # noqa: F811
    url, own = two_models
    page = open_page(url)
    pick(page, own)
    expect(page.locator(HEADER)).to_contain_text("Scripted replies (own.json)")
    send(page, "who answers?")
    expect(bot(page, "Own answers.")).to_be_visible()
    wait_turn_done(page)
    markdown = exported(page, "md")
    assert "model: scripted:own.json_" in markdown, markdown[:400]
    assert "scripted:demo" not in markdown, "the app's default is not this chat's model"
    assert json.loads(exported(page, "json"))["model"] == "scripted:own.json"
