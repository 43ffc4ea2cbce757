"""A cap on the size of requests to the app's own API (`/v1`, the MCP server).

The routes parse the whole JSON body before any check of their own, so without a cap one
request could make the app hold hundreds of megabytes. The cap follows the upload settings:
a message's files at their largest, base64-encoded, plus room for the text around them.
Refused with HTTP 413 and an OpenAI-style error before the rest of the body is read.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

MB = 1024 * 1024
HEADROOM_BYTES = 2 * MB  # the messages' text, the JSON around the files, data: URL prefixes

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def api_body_limit(max_files: int, max_file_bytes: int) -> int:
    """The most bytes one API request may carry: every file of a message at its largest,
    base64-encoded (4 bytes for 3), plus `HEADROOM_BYTES`.

    Args:
        max_files: Most files per message.
        max_file_bytes: Largest single file.
    """
    return max_files * -(-max_file_bytes * 4 // 3) + HEADROOM_BYTES


def too_large_message(limit: int) -> str:
    """What a caller whose request is over `limit` bytes is told."""
    return (
        f"Request too large: this server accepts at most {limit / MB:.1f} MB per request "
        "(its files per message times the largest file, base64-encoded). Send fewer or "
        "smaller files."
    )


class _TooLarge(Exception):
    """The body passed the limit while the route read it."""


class BodyLimit:
    """ASGI middleware refusing requests under `prefixes` whose body is over `limit` bytes.

    A declared Content-Length over the limit is refused before anything is read; a chunked
    body is counted as it arrives and refused when it passes the limit.

    Args:
        app: The served app.
        limit: Most bytes one request body may carry.
        prefixes: The paths it applies to (the API's); other paths pass untouched.
    """

    def __init__(self, app: Any, limit: int, prefixes: Sequence[str]):
        self.app, self.limit, self.prefixes = app, limit, tuple(prefixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.prefixes):
            await self.app(scope, receive, send)
            return
        declared = content_length(scope)
        if declared is not None and declared > self.limit:
            await self._refuse(send)
            return
        counted, started, refused = 0, False, False

        async def counting_receive() -> Message:
            nonlocal counted, refused
            message = await receive()
            if message["type"] == "http.request":
                counted += len(message.get("body", b""))
                if counted > self.limit and not refused:
                    # Answered here: the route turns any error while reading into its own
                    # answer (a 400), which `watching_send` now drops.
                    refused = not started
                    if refused:
                        await self._refuse(send)
                    raise _TooLarge
            return message

        async def watching_send(message: Message) -> None:
            nonlocal started
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, watching_send)
        except Exception:
            if not refused:
                raise

    async def _refuse(self, send: Send) -> None:
        error = {"message": too_large_message(self.limit), "type": "invalid_request_error",
                 "code": "request_too_large"}  # fmt: skip
        body = json.dumps({"error": error}).encode("utf-8")
        headers = [(b"content-type", b"application/json"),
                   (b"content-length", str(len(body)).encode()), (b"connection", b"close")]  # fmt: skip
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def content_length(scope: Scope) -> int | None:
    """The request's declared `Content-Length`, or None when it has none (or a bad one)."""
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


__all__ = ["BodyLimit", "api_body_limit", "too_large_message"]
