"""The model picker in Chromium: a visitor picks a second (scripted) model for a new chat."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import free_port
from tests.e2e.pages import CHAT, bot, send, wait_turn_done

pytestmark = pytest.mark.e2e

PANEL = ".prose.side-panel"


def answering(folder: Path, name: str, answer: str) -> str:
    """A `scripted:` spec whose model always answers `answer`."""
    path = folder / f"{name}.json"
    reply = f"<code>\nfinal_answer({answer!r})\n</code>"
    path.write_text(json.dumps({"replies": [reply], "loop": True}), encoding="utf-8")
    return f"scripted:{path}"


@pytest.fixture(scope="module")
def picker_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The real app with the app's own agent factory and two scripted models to pick from."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    from smolui.app.factory import AgentFactory
    from smolui.app.gradio_ui import GradioUI
    from smolui.app.settings import Settings

    root = tmp_path_factory.mktemp("picker")
    alpha, beta = (
        answering(root, "alpha", "Alpha answers."),
        answering(root, "beta", "Beta answers."),
    )
    port = free_port()
    settings = Settings(
        model=alpha, models=(alpha, beta), executor="local", host="127.0.0.1", port=port,
        upload_folder=str(root / "uploads"), data_dir=str(root / "data"),
    )  # fmt: skip
    ui = GradioUI(AgentFactory(settings, loader=None), settings=settings)
    ui.launch(prevent_thread_lock=True, quiet=True)
    yield f"http://127.0.0.1:{port}/", beta
    ui.close()


def test_a_second_model_picked_for_a_new_chat_answers(picker_app, open_page):
    url, beta = picker_app
    page = open_page(url)
    send(page, "who answers?")
    expect(bot(page, "Alpha answers.")).to_be_visible()
    wait_turn_done(page)
    picker = page.locator(".model-picker input")
    picker.click()
    page.get_by_role("option", name=beta).click()
    expect(page.locator(PANEL)).to_contain_text("alpha.json")  # this chat keeps its model
    expect(page.locator(PANEL)).not_to_contain_text("beta.json")
    page.locator(".new-chat-button").click()
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0)
    expect(page.locator(PANEL)).to_contain_text("beta.json")
    send(page, "who answers now?")
    expect(bot(page, "Beta answers.")).to_be_visible()
    expect(bot(page, "Alpha answers.")).to_have_count(0)
    wait_turn_done(page)
    # The model is kept with the conversation: opening a chat shows its model in the picker.
    page.reload()
    expect(page.locator(".model-picker input")).to_have_value(beta)
    page.locator(".conversation-list label").last.click()  # the first chat (newest first)
    expect(bot(page, "Alpha answers.")).to_be_visible()
    expect(page.locator(".model-picker input")).to_have_value(re.compile(r"\(default\)$"))


def test_the_pickers_list_closes_when_the_keyboard_leaves_it(picker_app, open_page):
    url, beta = picker_app
    page = open_page(url)
    picker = page.get_by_role("combobox", name="Model for new chats")
    shown = page.locator(".model-picker .option-list")  # the list a person sees
    picker.focus()
    expect(shown).to_be_visible()  # gradio opens the list when the picker takes focus
    page.keyboard.press("Tab")
    expect(picker).not_to_be_focused()
    expect(shown).to_have_count(0)  # it stayed open, covering the search box under it
    picker.click()
    page.get_by_role("option", name=beta).click()  # a pick still works, and closes it
    expect(picker).to_have_value(beta)
    expect(shown).to_have_count(0)
