"""Browser fixtures: the app on loopback, Chromium, and a screenshot of every failing page."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import CHROMIUM, CHROMIUM_ARGS, ScriptedApp
from tests.waiting import wait_for

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.e2e)
            if not os.path.exists(CHROMIUM):
                item.add_marker(
                    pytest.mark.skip(reason=f"{CHROMIUM} missing: apt-get install chromium")
                )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import expect, sync_playwright

    # Assertions wait up to 60 s (Playwright's default is 5 s): on a loaded 2-core machine (the
    # suite beside another suite and `make test-load`'s spinners) a cold page, a reload or a
    # streamed step can take tens of seconds. A test still fails when the thing never shows;
    # one that passes returns as soon as it shows.
    expect.set_options(timeout=60_000)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    """The real app, in this process, with a scripted model per conversation."""
    server = ScriptedApp(tmp_path_factory.mktemp("uploads")).start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def open_gates_after_each_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Opens the gates a test left closed (it failed early), so no agent of the shared app
    stays held into the next test."""
    yield
    if "app" in request.fixturenames:
        request.getfixturevalue("app").open_gates()


@pytest.fixture
def new_page(browser, request: pytest.FixtureRequest):
    """Opens pages in fresh browser contexts (separate storage: separate visitors)."""
    contexts = []

    def open_page(url: str):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(60_000)
        contexts.append(context)
        page = context.new_page()
        page.goto(url)
        return page

    yield open_page
    failed = getattr(request.node, "report_call", None)
    if failed is not None and failed.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.nodeid)
        for index, context in enumerate(contexts):
            for number, page in enumerate(context.pages):
                try:
                    page.screenshot(
                        path=str(ARTIFACTS / f"{name}-{index}-{number}.png"), full_page=True
                    )
                except Exception:  # a crashed page must not hide the test's own failure
                    pass
    for context in contexts:
        context.close()


@pytest.fixture
def open_page(browser):
    """Opens the app in a fresh context of the given size and colour scheme, once the page
    has loaded its conversation (the message box is enabled)."""
    from playwright.sync_api import expect

    contexts = []

    def open_(url: str, viewport: dict[str, int] | None = None, dark: bool = False):
        size = viewport or {"width": 1400, "height": 900}
        context = browser.new_context(viewport=size, color_scheme="dark" if dark else "light")
        context.set_default_timeout(60_000)
        contexts.append(context)
        page = context.new_page()
        # What went wrong in the page, for a load that never ends.
        troubles: list[str] = []
        page.on("console", lambda m: troubles.append(f"console {m.type}: {m.text}")
                if m.type in ("error", "warning") else None)  # fmt: skip
        page.on("pageerror", lambda error: troubles.append(f"page error: {error}"))
        page.on("requestfailed", lambda r: troubles.append(f"failed: {r.url} {r.failure}"))
        page.goto(url + ("?__theme=dark" if dark else ""))
        box = page.locator("#message textarea")
        usable = lambda: box.count() == 1 and box.is_enabled()  # noqa: E731
        # Chromium drops what it is loading when the host's network changes (containers
        # starting or stopping beside it: net::ERR_NETWORK_CHANGED), and the page then stays
        # at gradio's "Loading...": a person reloads, and so does this, once.
        changed = lambda: any("ERR_NETWORK_CHANGED" in said for said in troubles)  # noqa: E731
        try:  # a cold load on a busy machine
            wait_for(lambda: usable() or changed(), "the page loads", timeout=120, poll=0.2)
            if not usable():
                troubles.append("(reloaded: the network changed while the page loaded)")
                page.reload()
            expect(box).to_be_enabled(timeout=120_000)
        except AssertionError as error:
            raise AssertionError(f"{error}\nthe page said:\n" + "\n".join(troubles)) from error
        return page

    yield open_
    for context in contexts:
        context.close()
