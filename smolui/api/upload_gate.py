"""A bound on what gradio's upload route may write to the disk for one visitor.

Gradio stores every file posted to `/gradio_api/upload` in its cache before any handler of
the app sees it: up to 1,000 parts of the largest file size in one request, any number of
requests, from anyone who may open the page (everyone, without sign-in). The owner quota and
the daily upload limit count a message's files only when a turn takes them, so without this
gate one visitor could fill the disk with files they never send.

Here a request may carry one message's files at their largest (`max_files` times the largest
file, plus the multipart framing) and at most `max_files` parts, and one client address
`messages_per_hour` such messages' worth of bytes and of requests an hour (so of files too:
tiny files cost the cache a folder each). The body's declared length is counted before
anything is read; a request that declares none is refused (browsers always declare it for a
form); parts are counted as the body arrives.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import Any

from limits import RateLimitItemPerHour
from limits.storage import MemoryStorage
from limits.strategies import FixedWindowRateLimiter

from smolui.api.body_limit import content_length
from smolui.auth.identity import scope_client
from smolui.auth.proxy_peers import NO_PROXIES, Proxies

UPLOAD_PATH = "/gradio_api/upload"
PART_FRAMING_BYTES = 4096  # a part's boundary and headers (a long file name fits)
FORM_FRAMING_BYTES = 64 * 1024
MESSAGES_PER_HOUR = 20
TOO_LARGE = "Too many or too large files in one upload: at most {files} files of {mb:.3g} MB."
TOO_MUCH = "Too many uploads from your address. Try again in {minutes} min."
NO_LENGTH = "An upload must declare its length (Content-Length)."


class UploadGate:
    """ASGI middleware in front of gradio's upload route (other paths pass untouched).

    Args:
        app: The served app.
        max_files: Most files one message may carry.
        max_file_bytes: Largest single file.
        proxies: The proxies whose `X-Forwarded-For` is believed (default none).
        messages_per_hour: Messages' worth of upload bytes and requests (a message's files
            each) one address may send an hour.
        clock: Epoch seconds now (for the "try again in" figure).
    """

    def __init__(
        self,
        app: Any,
        max_files: int,
        max_file_bytes: int,
        proxies: Proxies = NO_PROXIES,
        messages_per_hour: int = MESSAGES_PER_HOUR,
        clock: Callable[[], float] = time.time,
    ):
        self.app, self.proxies, self.clock = app, proxies, clock
        self.max_files, self.max_file_bytes = max(1, max_files), max_file_bytes
        self.request_limit = self.max_files * (max_file_bytes + PART_FRAMING_BYTES)
        self.request_limit += FORM_FRAMING_BYTES
        self.hourly = RateLimitItemPerHour(self.request_limit * max(1, messages_per_hour))
        # Requests too: each may hold up to `max_files` files, however small.
        self.requests = RateLimitItemPerHour(self.max_files * max(1, messages_per_hour))
        self._windows = FixedWindowRateLimiter(MemoryStorage())

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not _is_upload(scope):
            await self.app(scope, receive, send)
            return
        declared = content_length(scope)
        if declared is None:
            await _answer(send, 411, NO_LENGTH)
            return
        if declared > self.request_limit:
            mb = self.max_file_bytes / (1024 * 1024)
            await _answer(send, 413, TOO_LARGE.format(files=self.max_files, mb=mb))
            return
        address, cost = scope_client(scope, self.proxies), max(1, declared)
        wait = self._wait(address, cost)
        if wait:
            await _answer(send, 429, TOO_MUCH.format(minutes=math.ceil(wait / 60)), wait)
            return
        self._windows.hit(self.hourly, "bytes", address, cost=cost)
        self._windows.hit(self.requests, "requests", address)
        await self._counting_parts(scope, receive, send)

    async def _counting_parts(self, scope: dict, receive: Callable, send: Callable) -> None:
        """Pass the request on, refusing it (413) once it holds more parts than a message
        has files: many tiny files fit in few bytes, and each costs the cache a folder.
        Gradio answers an upload only after reading all of it, so the refusal comes first."""
        parts = _PartCounter(_boundary(scope))
        refused = False

        async def counting_receive() -> dict:
            nonlocal refused
            message = await receive()
            if message["type"] == "http.request":
                parts.add(message.get("body", b""))
                if parts.count > self.max_files:
                    if not refused:
                        refused = True
                        mb = self.max_file_bytes / (1024 * 1024)
                        await _answer(send, 413, TOO_LARGE.format(files=self.max_files, mb=mb))
                    raise _TooManyParts
            return message

        async def watching_send(message: dict) -> None:
            if not refused:  # gradio's own answer to the interrupted read is dropped
                await send(message)

        try:
            await self.app(scope, counting_receive, watching_send)
        except Exception:
            if not refused:
                raise

    def _wait(self, address: str, cost: int) -> int:
        """Seconds until `address` may upload `cost` bytes more (0: now). Tested before
        anything is counted, so a refused request costs its address nothing."""
        for item, kind, amount in ((self.hourly, "bytes", cost), (self.requests, "requests", 1)):
            if not self._windows.test(item, kind, address, cost=amount):
                reset = self._windows.get_window_stats(item, kind, address).reset_time
                return max(1, math.ceil(reset - self.clock()))
        return 0


class _TooManyParts(Exception):
    """The upload held more parts than a message has files."""


class _PartCounter:
    """Counts a multipart body's parts as its chunks arrive (a part begins at each
    `--boundary` line; the last one closes the form).

    Args:
        boundary: The form's boundary (None: nothing is counted).
    """

    def __init__(self, boundary: bytes | None):
        self.delimiter = b"--" + boundary if boundary else b""
        self.seen, self._tail = 0, b""

    @property
    def count(self) -> int:
        """Parts begun so far (the closing delimiter is not a part)."""
        return max(0, self.seen - 1)

    def add(self, chunk: bytes) -> None:
        """Count the delimiters `chunk` completes (one may begin in the previous chunk)."""
        if not self.delimiter or not chunk:
            return
        window = self._tail + chunk
        self.seen += window.count(self.delimiter)
        self._tail = window[-(len(self.delimiter) - 1) :]


def _boundary(scope: dict) -> bytes | None:
    for name, value in scope.get("headers", []):
        if name == b"content-type":
            for piece in value.split(b";")[1:]:
                key, _, found = piece.strip().partition(b"=")
                if key.lower() == b"boundary" and found:
                    return found.strip(b'"')
    return None


def _is_upload(scope: dict) -> bool:
    root = scope.get("root_path", "")
    path = scope["path"][len(root) :] if root and scope["path"].startswith(root) else scope["path"]
    return path.rstrip("/") == UPLOAD_PATH

    return None


async def _answer(send: Callable, status: int, detail: str, retry_after: int = 0) -> None:
    body = json.dumps({"detail": detail}).encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"connection", b"close"),
               (b"content-length", str(len(body)).encode())]  # fmt: skip
    if retry_after:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


__all__ = ["UPLOAD_PATH", "UploadGate"]
