"""One chat turn in Chromium with code running in a kernel on a real Jupyter Kernel Gateway."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import bot, send, wait_turn_done
from tests.kernel_gateway import gateway_available

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.skipif(not gateway_available(), reason="pip install jupyter_kernel_gateway"),
]


@pytest.fixture(scope="module")
def jupyter_app(kernel_gateway, tmp_path_factory):
    server = ScriptedApp(
        tmp_path_factory.mktemp("uploads"), executor="jupyter", executor_url=kernel_gateway.url
    ).start()
    yield server
    server.stop()


def test_a_turn_runs_its_code_in_the_gateway_kernel(
    jupyter_app, kernel_gateway, new_page, monkeypatch
):
    gateway = kernel_gateway
    kernels_before = gateway.kernel_count()
    # The executor reads the gateway from the environment, as `app.py --executor jupyter` does.
    monkeypatch.setenv("SMOLUI_EXECUTOR_URL", gateway.url)
    monkeypatch.setenv("SMOLUI_EXECUTOR_TOKEN", gateway.token)
    jupyter_app.script = lambda: [
        "Thought: compute in the kernel.\n<code>\nimport math\nx = math.factorial(5)\n"
        "print('computed', x)\n</code>",
        "Thought: answer.\n<code>\nfinal_answer(f'kernel says {x}')\n</code>",
    ]
    page = new_page(jupyter_app.url)
    send(page, "compute in the kernel")
    # x was set by step 1 in the kernel: the answer proves both steps ran there.
    expect(bot(page, "kernel says 120").last).to_be_visible(timeout=60_000)
    wait_turn_done(page)
    panel = page.locator(".side-panel").first
    expect(panel).to_contain_text("Code runs in")
    # Said for the person chatting: a code server apart from the app (not its address).
    expect(panel).to_contain_text("Code runs in: a separate code server")
    assert gateway.kernel_count() == kernels_before + 1  # this conversation's kernel
