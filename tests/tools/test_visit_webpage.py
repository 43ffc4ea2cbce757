"""visit_webpage against a real HTTP server on loopback."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tools.base import ToolExecutionError
from tools.visit_webpage import VisitWebpageTool, truncate

PAGE = b"""<!doctype html><html><head><title>Test page</title>
<style>body { color: red; }</style><script>var secret = "do-not-show";</script></head>
<body><h1>Welcome</h1><p>Hello <b>agents</b>, see <a href="/other">the other page</a>.</p>
<ul><li>first</li><li>second</li></ul></body></html>"""
HUGE_SIZE = 20 * 1024 * 1024
# /slow answers only once a test sets this (or after a minute, so nothing hangs).
SLOW_GATE = threading.Event()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep test output quiet
        pass

    def _send(self, status: int, body: bytes, content_type: str, length: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        routes = {
            "/page": lambda: self._send(200, PAGE, "text/html; charset=utf-8"),
            "/redirect": lambda: self._redirect("/page"),
            "/loop": lambda: self._redirect("/loop"),
            "/missing": lambda: self._send(404, b"<h1>nope</h1>", "text/html"),
            "/slow": self._slow,
            "/huge": lambda: self._huge(declare_length=True),
            "/huge-stream": lambda: self._huge(declare_length=False),
            "/binary": lambda: self._send(200, b"\x89PNG\r\n\x1a\n" + b"0" * 100, "image/png"),
            "/long": lambda: self._send(200, ("word " * 20_000).encode(), "text/plain"),
            "/latin1": lambda: self._send(
                200, "<p>café crème</p>".encode("latin-1"), "text/html; charset=iso-8859-1"
            ),
        }
        routes.get(self.path, lambda: self._send(404, b"not found", "text/plain"))()

    def _redirect(self, where: str) -> None:
        self.send_response(302)
        self.send_header("Location", where)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _slow(self) -> None:
        SLOW_GATE.wait(60)
        try:
            self._send(200, b"<p>late</p>", "text/html")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up, as it should

    def _huge(self, declare_length: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        if declare_length:
            self.send_header("Content-Length", str(HUGE_SIZE))
        self.end_headers()
        chunk = b"<p>" + b"x" * 65_529 + b"</p>"
        try:
            for _ in range(HUGE_SIZE // len(chunk)):
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading, as it should


@pytest.fixture(autouse=True)
def private_hosts_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test server is on loopback, which the tool refuses unless the operator allows it
    (tests/tools/test_visit_webpage_guard.py checks the refusal)."""
    monkeypatch.setenv("SMOLUI_VISIT_PRIVATE_HOSTS", "1")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_html_becomes_markdown_without_scripts(server: str) -> None:
    text = VisitWebpageTool()(url=f"{server}/page")
    assert "# Welcome" in text
    assert "**agents**" in text
    assert "[the other page](/other)" in text
    assert "do-not-show" not in text and "color: red" not in text


def test_redirect_is_followed(server: str) -> None:
    assert "# Welcome" in VisitWebpageTool()(url=f"{server}/redirect")


def test_redirect_loop_is_a_clear_error(server: str) -> None:
    with pytest.raises(ToolExecutionError, match="redirected more than 3 times"):
        VisitWebpageTool(max_redirects=3)(url=f"{server}/loop")


def test_404_says_so(server: str) -> None:
    with pytest.raises(ToolExecutionError, match="HTTP 404"):
        VisitWebpageTool()(url=f"{server}/missing")


def test_slow_page_times_out(server: str) -> None:
    # The page answers only after the tool has given up: the timeout is what ends the wait.
    SLOW_GATE.clear()
    try:
        with pytest.raises(
            ToolExecutionError, match=r"did not answer within 1 seconds \(timeout\)"
        ):
            VisitWebpageTool(timeout=1.0)(url=f"{server}/slow")
    finally:
        SLOW_GATE.set()


@pytest.mark.parametrize("path", ["/huge", "/huge-stream"])
def test_huge_page_is_refused(server: str, path: str) -> None:
    with pytest.raises(ToolExecutionError, match="too large"):
        VisitWebpageTool()(url=f"{server}{path}")


def test_non_html_is_refused(server: str) -> None:
    with pytest.raises(ToolExecutionError, match="image/png"):
        VisitWebpageTool()(url=f"{server}/binary")


def test_declared_charset_is_used(server: str) -> None:
    assert "café crème" in VisitWebpageTool()(url=f"{server}/latin1")


def test_long_page_is_truncated_and_can_be_continued(server: str) -> None:
    tool = VisitWebpageTool(max_output_length=1000)
    first = tool(url=f"{server}/long")
    assert first.startswith("word word")
    assert "start=1000" in first and "more characters cut" in first
    second = tool(url=f"{server}/long", start=1000)
    assert second.startswith("word") and "[characters 1000-2000 of" in second


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "not a web address"),
        ("file:///etc/passwd", "not a web address"),
        ("http://169.254.169.254/latest/meta-data", "not allowed"),
    ],
)
def test_bad_urls_are_readable_errors(url: str, message: str) -> None:
    with pytest.raises(ToolExecutionError, match=message):
        VisitWebpageTool()(url=url)


def test_private_addresses_can_be_refused(server: str) -> None:
    with pytest.raises(ToolExecutionError, match="private network"):
        VisitWebpageTool(allow_private=False)(url=f"{server}/page")


def test_unreachable_host_is_readable() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ToolExecutionError, match="Could not reach"):
        VisitWebpageTool(timeout=2)(url=f"http://127.0.0.1:{port}/")


def test_truncate_past_end() -> None:
    assert "nothing after offset 50" in truncate("short", 10, start=50)
