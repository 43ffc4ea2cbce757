"""The header's model line in Chromium: it names the model of the conversation shown (as the
side panel does), and picking a model says "keeps its model" once, only when a chat keeps one."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from smolui.render.panel import DEMO_LINE
from tests.e2e.harness import free_port
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, wait_turn_done
from tests.e2e.test_model_picker_e2e import answering

pytestmark = pytest.mark.e2e

HEADER = ".prose.smolui-header"
PANEL = ".prose.side-panel"
TOAST = '[data-testid="toast-text"]'
KEEPS = "This conversation keeps its model"
# Counts the "keeps its model" toasts shown since it ran.
COUNT_KEEPS = """() => {
  window.keepsToasts = 0;
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) {
        if (node.nodeType !== 1) continue;
        const texts = node.matches('[data-testid="toast-text"]')
          ? [node] : [...node.querySelectorAll('[data-testid="toast-text"]')];
        window.keepsToasts += texts.filter((t) => t.textContent.includes("keeps its model")).length;
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""


@pytest.fixture(scope="module")
def two_models(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The real app with the scripted demo as its default and a scripted file to pick."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    from smolui.app.factory import AgentFactory
    from smolui.app.gradio_ui import GradioUI
    from smolui.app.settings import Settings

    root = tmp_path_factory.mktemp("header")
    own = answering(root, "own", "Own answers.")
    port = free_port()
    settings = Settings(
        model="scripted:demo", models=("scripted:demo", own), executor="local",
        host="127.0.0.1", port=port, upload_folder=str(root / "uploads"),
        data_dir=str(root / "data"),
    )  # fmt: skip
    ui = GradioUI(AgentFactory(settings, loader=None), settings=settings)
    ui.launch(prevent_thread_lock=True, quiet=True)
    yield f"http://127.0.0.1:{port}/", own
    ui.close()


def pick(page, spec: str) -> None:
    page.locator(".model-picker input").click()
    page.get_by_role("option", name=spec).click()


def test_the_header_names_the_model_of_the_chat_shown(two_models, open_page):
    url, own = two_models
    page = open_page(url)
    header, panel = page.locator(HEADER), page.locator(PANEL)
    expect(header).to_contain_text(DEMO_LINE)
    pick(page, own)  # an empty chat takes the model picked: nothing is kept
    expect(panel).to_contain_text("Model: scripted:own.json")  # the panel names it plainly
    expect(header).to_contain_text("Scripted replies (own.json)")
    expect(header).not_to_contain_text(DEMO_LINE)
    expect(header).not_to_contain_text(str(Path(own.partition(":")[2]).parent))  # no path
    send(page, "who answers?")
    expect(bot(page, "Own answers.")).to_be_visible()
    wait_turn_done(page)
    page.reload()
    expect(page.locator(f"{CHAT} [data-testid='user']")).to_have_count(1)
    expect(page.locator(HEADER)).to_contain_text("Scripted replies (own.json)")
    # A new chat with the demo picked; the first chat, reopened, shows its own model again.
    pick(page, "scripted:demo")
    page.locator(".new-chat-button").click()
    expect(page.locator(f"{CHAT} [data-testid='user']")).to_have_count(0)
    expect(page.locator(HEADER)).to_contain_text(DEMO_LINE)
    page.locator(".conversation-list label").last.click()  # the first chat (newest first)
    expect(bot(page, "Own answers.")).to_be_visible()
    expect(page.locator(HEADER)).to_contain_text("Scripted replies (own.json)")


def test_keeps_its_model_is_said_once_and_only_when_a_chat_keeps_one(two_models, open_page):
    url, own = two_models
    page = open_page(url)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    page.evaluate(COUNT_KEEPS)  # toasts go after a while: counted as they come
    pick(page, own)  # an empty chat: it takes the model, nothing to say
    expect(page.locator(HEADER)).to_contain_text("Scripted replies (own.json)")
    send(page, "who answers?")
    expect(bot(page, "Own answers.")).to_be_visible()
    wait_turn_done(page)
    pick(page, "scripted:demo")  # this chat has turns: it keeps its model
    expect(page.locator(TOAST, has_text=KEEPS).first).to_be_visible()
    # A later event: once the new chat shows, both answers of a doubled pick are in.
    page.locator(".new-chat-button").click()
    expect(page.locator(f"{CHAT} [data-testid='user']")).to_have_count(0)
    expect(page.locator(HEADER)).to_contain_text(DEMO_LINE)
    assert page.evaluate("window.keepsToasts") == 1
