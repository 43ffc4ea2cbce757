"""The app image, built from the Dockerfile and run as a Docker Space runs it.

Built with podman on a Debian base made with debootstrap (no registry is reachable here),
run as uid 1000 on port 7860 with its data on a volume, with the offline model inside the
image. One chat turn in Chromium through the published port; then the container is replaced
by a new one on the same volume, and the conversation is still there.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest

from tests.containers import app_image, engine_leftovers, missing_engine
from tests.deploy.app_container import DATA, LABEL, AppContainer, podman
from tests.e2e.harness import CHROMIUM, CHROMIUM_ARGS, free_port
from tests.e2e.pages import CHAT, MESSAGE_BOX, send, wait_turn_done

# The first build on a machine compiles llama.cpp; later runs reuse podman's layer cache.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]
SLOW = 180_000  # ms: the offline model answers on a busy 2-core machine, in a container


@pytest.fixture(scope="module")
def image() -> str:
    reason = missing_engine() or (None if os.path.exists(CHROMIUM) else f"{CHROMIUM} missing")
    if reason:
        pytest.skip(reason)
    return app_image()


@pytest.fixture
def container(image: str) -> Iterator[AppContainer]:
    app = AppContainer(image, free_port(), f"smolui-app-test-data-{os.getpid()}",
                       {"SMOLUI_MAX_STEPS": "2"})  # fmt: skip
    app.create_volume()
    yield app
    app.remove()
    app.remove_volume()
    assert engine_leftovers(LABEL) == {}, "the test left containers or volumes behind"


@pytest.fixture
def page() -> Iterator[object]:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=SLOW)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(60_000)
        yield context.new_page()
        browser.close()


def test_the_image_serves_a_turn_as_uid_1000_and_keeps_it_on_its_volume(container, page):
    from playwright.sync_api import expect

    container.run().wait_ready()
    assert podman("exec", container.name, "id", "-u") == "1000"
    health = subprocess.run(["podman", "healthcheck", "run", container.name], capture_output=True)
    assert health.returncode == 0, f"HEALTHCHECK failed: {health.stdout!r} {health.stderr!r}"

    page.goto(container.url)
    send(page, "Hello! What is 2 + 3?")
    wait_turn_done(page)
    answers = page.locator(CHAT).get_by_label("bot's message: ")
    expect(answers.first).to_be_visible()
    answer = answers.last.inner_text().strip()
    assert answer, "the turn ended without a message"
    stored = podman("exec", container.name, "ls", DATA)
    assert "smolui.db" in stored.split(), f"no database in the volume: {stored!r}"

    container.remove()  # a new container on the same volume, at the same address
    container.run().wait_ready()
    page.reload()
    user = page.locator(f'{CHAT} [data-testid="user"]', has_text="What is 2 + 3?")
    expect(user).to_be_visible()
    expect(answers.last).to_have_text(answer)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
