"""`python app.py` with the real offline model (SmolLM2 via llama.cpp): one turn completes."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import free_port
from tests.e2e.pages import CHAT, MESSAGE_BOX, send, spinners
from tests.waiting import wait_for

# The real model on a loaded 2-core machine can take minutes: the test's own limit is well
# above the turn's wait below.
pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(1200)]

ROOT = Path(__file__).resolve().parents[2]


def answers_200(url: str, process: subprocess.Popen) -> bool:
    """Whether `url` answers 200 yet (fails once the process has died)."""
    if process.poll() is not None:
        pytest.fail(f"app.py exited with {process.returncode}")
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.fixture
def offline_app(tmp_path: Path):
    pytest.importorskip("llama_cpp")
    port = free_port()
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", SMOLUI_LOG_LEVEL="WARNING")
    command = [sys.executable, "app.py", "--model", "local", "--port", str(port), "--max-steps", "2",
               "--upload-folder", str(tmp_path / "uploads")]  # fmt: skip
    log = (tmp_path / "app.log").open("w")
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        # The port answers at once with a starting page; /readyz says when the chat serves
        # and the model is loaded.
        ready = f"http://127.0.0.1:{port}/readyz"
        wait_for(lambda: answers_200(ready, process), f"{ready} answers", timeout=120, poll=0.2)
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def test_one_turn_on_the_real_offline_model_completes(offline_app, new_page):
    url = offline_app
    page = new_page(url)
    send(page, "What is 2 + 2?")
    expect(page.locator(f"{CHAT} .thought-group").first).to_be_visible()
    footer = page.locator(f"{CHAT} sub", has_text=" step")
    expect(footer).to_be_visible(timeout=900_000)
    expect(spinners(page)).to_have_count(0)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    text = page.locator(CHAT).inner_text()
    assert "Something went wrong on the server" not in text
    assert "Traceback" not in text
