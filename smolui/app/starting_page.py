"""The page served while the app starts, so `python app.py` answers HTTP at once.

Building the chat app takes seconds (gradio's import alone is most of it). `StartingPage`
binds the app's port before any of that, with the standard library only, and answers:

- `GET /`: 200 with a short "starting" page whose response stays open until the app
  serves (or `HOLD_S` passes); it then ends with a script that reloads the page, so the
  browser lands in the chat without anyone pressing reload;
- `/healthz`: 200 (the process is alive); `/readyz` and anything else: 503 with
  `Retry-After`.

When the app is built, `hand_over()` stops answering and returns the listening socket for
the app's server to serve on: connections that arrive meanwhile wait in the socket's
backlog instead of being refused. `release()` then lets the held pages reload.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

logger = logging.getLogger(__name__)

HOLD_S = 60.0  # longest a starting page stays open before it reloads to look again
RETRY_AFTER_S = 1
PAGE_HEAD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} · starting</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<style>body{{font:16px system-ui,sans-serif;display:grid;place-items:center;min-height:90vh;margin:0}}
p{{max-width:30em;text-align:center;line-height:1.5}}</style></head>
<body><p role="status"><strong>{title} is starting.</strong><br>
The chat opens here by itself in a few seconds.</p>
"""
PAGE_END = "<script>location.reload()</script></body></html>\n"


class _StartingServer(ThreadingHTTPServer):
    daemon_threads = True  # a held page must never keep the process alive

    def __init__(self, address: tuple[str, int], family: socket.AddressFamily, title: str):
        self.address_family = family
        self.title = title
        self.released = threading.Event()
        super().__init__(address, _Handler)

    def handle_error(self, request: object, client_address: object) -> None:
        # Mostly a client that left before its page was released (e.g. a health prober).
        logger.debug("starting page: a request from %s failed", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    server: _StartingServer

    def do_GET(self) -> None:  # noqa: N802 (the http.server naming)
        path = urlsplit(self.path).path
        if path == "/":
            self._page()
        elif path == "/healthz":
            self._json(200, {"status": "ok"})
        else:
            self._starting()

    def do_HEAD(self) -> None:  # noqa: N802
        self._json(200 if urlsplit(self.path).path in ("/", "/healthz") else 503, None)

    def do_POST(self) -> None:  # noqa: N802
        self._starting()

    def _page(self) -> None:
        self.send_response(200)
        self._no_cache("text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(PAGE_HEAD.format(title=self.server.title).encode())
        self.wfile.flush()
        self.server.released.wait(HOLD_S)
        self.wfile.write(PAGE_END.encode())

    def _starting(self) -> None:
        body = {"status": "not ready", "checks": {"app": "starting"}}
        self._json(503, body, {"Retry-After": str(RETRY_AFTER_S)})

    def _json(self, status: int, body: object, headers: dict[str, str] | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self._no_cache("application/json")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _no_cache(self, content_type: str) -> None:
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (its signature)
        logger.debug("starting page: " + format, *args)


class StartingPage:
    """Serves the starting page on the app's address until the app takes the socket over.

    Args:
        host: Interface to listen on ("" or "0.0.0.0": all IPv4 ones; "::" for IPv6).
        port: TCP port.
        title: The app's name, shown on the page.

    Raises:
        OSError: The address cannot be bound (e.g. the port is taken).
    """

    def __init__(self, host: str, port: int, title: str = "smolui"):
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._server = _StartingServer((host, port), family, title)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="smolui-starting", daemon=True
        )
        self._thread.start()
        logger.info("starting page on %s:%s", host, port)

    @property
    def port(self) -> int:
        """The port it listens on (the one the system chose when asked for port 0)."""
        return self._server.server_address[1]

    def hand_over(self) -> socket.socket:
        """Stop answering and return the listening socket (still bound and listening)."""
        self._server.shutdown()
        self._thread.join()
        return self._server.socket

    def release(self) -> None:
        """Let the held starting pages finish: they reload into the app."""
        self._server.released.set()

    def close(self) -> None:
        """Stop answering, release held pages and close the socket (the app did not start)."""
        if self._thread.is_alive():
            self._server.shutdown()
        self.release()
        self._server.server_close()
