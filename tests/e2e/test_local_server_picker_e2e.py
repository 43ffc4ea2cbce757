"""The model picker in Chromium offers the model of a llama.cpp server found on loopback
(the real `python -m llama_cpp.server` with the bundled GGUF), and a chat picked with it runs
on that server."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from agents.models.bundled import bundled_gguf_path
from tests.agents.models.model_servers import LlamaServer
from tests.e2e.harness import free_port
from tests.e2e.pages import CHAT, send, wait_turn_done
from tests.waiting import wait_for

# A real model's step on a loaded 2-core machine can take minutes: the test's own limit is
# well above the step's wait below.
pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(1200)]

PANEL = ".prose.side-panel"


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    log = tmp_path_factory.mktemp("llama") / "server.log"
    server = LlamaServer(bundled_gguf_path(), log).start()
    yield server
    server.kill()


@pytest.fixture(scope="module")
def found_app(
    llama_server: LlamaServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """The real app, its default model scripted, looking for servers on the llama.cpp
    server's port (and on one where nothing listens)."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    from smolui.app.factory import AgentFactory
    from smolui.app.gradio_ui import GradioUI
    from smolui.app.settings import Settings

    root = tmp_path_factory.mktemp("found")
    script = root / "default.json"
    reply = "<code>\nfinal_answer('The default model answers.')\n</code>"
    script.write_text(json.dumps({"replies": [reply], "loop": True}), encoding="utf-8")
    port = free_port()
    settings = Settings(
        model=f"scripted:{script}", executor="local", host="127.0.0.1", port=port,
        upload_folder=str(root / "uploads"), data_dir=str(root / "data"), max_steps=1,
        find_local_servers=True, local_server_ports=f"{free_port()},{llama_server.port}",
    )  # fmt: skip
    factory = AgentFactory(settings, loader=None)
    assert factory.local_models is not None and factory.local_models.wait(timeout=60)
    ui = GradioUI(factory, settings=settings)
    ui.launch(prevent_thread_lock=True, quiet=True)
    yield f"http://127.0.0.1:{port}/", f"port {llama_server.port}"
    ui.close()


def test_the_picker_lists_the_local_server_model_and_a_chat_runs_on_it(
    found_app, llama_server, open_page
):
    url, where = found_app
    page = open_page(url)
    picker = page.locator(".model-picker input")
    expect(picker).to_be_visible()
    expect(picker).to_have_value(re.compile(r"\(default\)$"))
    picker.click()
    found = page.get_by_role(
        "option", name=re.compile(rf"\.gguf \(OpenAI-compatible server, {where}\)")
    )
    expect(found).to_have_count(1)
    found.click()
    page.locator(".new-chat-button").click()
    expect(page.locator(PANEL)).to_contain_text("openai-local:")
    send(page, "Say hello.")
    # A real model on a busy CPU: its step takes a while (generously bounded).
    expect(page.locator(f"{CHAT} sub", has_text=" step")).to_have_count(1, timeout=900_000)
    wait_turn_done(page)
    # The turn ran on the server's model: its request is in the server's log, and the
    # scripted default model's answer never shows.
    wait_for(
        lambda: "POST /v1/chat/completions" in llama_server.log_tail(),
        "the chat request in the llama.cpp server's log",
    )
    expect(page.locator(CHAT)).not_to_contain_text("The default model answers.")
    expect(page.locator(".model-picker input")).to_have_value(re.compile(r"\.gguf \(OpenAI"))
