"""Login throttling: how many password checks a name and an address may cost, and how many run.

Every password check costs one bcrypt (a fraction of a second of CPU). Without a bound, a
flood of wrong guesses fills the server's threads and every other visitor waits. Here each
attempt is counted before any check runs: an address may try `per_address` times, a name may
fail `per_name` times (then it is locked until the oldest failure ages out), and at most
`at_once` checks run while `waiting` more may wait; anything beyond is refused at once with
429, having cost nothing but reading a small form. Counting uses the `limits` library's
moving windows, in this process's memory.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.requests import Request

from smolui.auth.identity import scope_client
from smolui.auth.proxy_peers import NO_PROXIES, Proxies

logger = logging.getLogger(__name__)

LOGIN_PATHS = ("/login", "/login/")
MAX_FORM_BYTES = 8 * 1024  # a name and a password (bcrypt reads 72 bytes) fit many times over
MAX_NAME_CHARS = 100  # longer names are not users (see passwords.NAME_PATTERN); key on a prefix
BUSY = "The sign-in is busy. Try again in a minute."


@dataclass(frozen=True)
class LoginLimits:
    """How much signing in may cost (the `limits` notation, e.g. "10/minute;50/hour").

    Args:
        per_address: Attempts one client address may make, right or wrong.
        per_name: Failed attempts one name may have; past it the name is locked out.
        at_once: Password checks running at once (each holds a thread and a core).
        waiting: Attempts that may wait for a check; more are refused at once.
    """

    per_address: str = "10/minute;60/hour"
    per_name: str = "10/15minutes"
    at_once: int = 1
    waiting: int = 8


class LoginThrottle:
    """Counts sign-in attempts per address and failures per name, and refuses over the limits.

    Args:
        limits: The limits.
        clock: Epoch seconds now (for the "try again in" figure).
    """

    def __init__(self, limits: LoginLimits | None = None, clock: Callable[[], float] = time.time):
        self.limits = limits or LoginLimits()
        self.clock = clock
        self._windows = MovingWindowRateLimiter(MemoryStorage())
        self._per_address: list[RateLimitItem] = parse_many(self.limits.per_address)
        self._per_name: list[RateLimitItem] = parse_many(self.limits.per_name)
        self._running: asyncio.Semaphore | None = None
        self._waiting = 0

    def refusal(self, name: str, address: str) -> Refusal | None:
        """Count an attempt from `address` for `name`, or say why it may not be made.

        Args:
            name: The user name typed (stripped, as gradio does).
            address: The client's address.
        """
        key = name[:MAX_NAME_CHARS]
        for item in self._per_name:  # a locked name is refused before the address pays
            if not self._windows.test(item, "name", key):
                return self._message("this user name", item, "name", key)
        for item in self._per_address:
            if not self._windows.hit(item, "address", address):
                return self._message("your address", item, "address", address)
        return None

    def failed(self, name: str) -> None:
        """Count a failed attempt for `name`.

        Args:
            name: The user name typed.
        """
        for item in self._per_name:
            self._windows.hit(item, "name", name[:MAX_NAME_CHARS])

    async def run(self, check: Callable[[], Awaitable[None]]) -> bool:
        """Run one password check once a check slot is free; False (nothing run) when too
        many attempts wait already.

        Args:
            check: Runs the check (gradio's login route).
        """
        if self._running is None:  # made here, inside the server's event loop
            self._running = asyncio.Semaphore(self.limits.at_once)
        if self._running.locked() and self._waiting >= self.limits.waiting:
            return False
        self._waiting += 1
        try:
            await self._running.acquire()
        finally:
            self._waiting -= 1
        try:
            await check()
        finally:
            self._running.release()
        return True

    def _message(self, who: str, item: RateLimitItem, *identifiers: str) -> Refusal:
        reset = self._windows.get_window_stats(item, *identifiers).reset_time
        seconds = max(1, math.ceil(reset - self.clock()))
        minutes = math.ceil(seconds / 60)
        text = f"Too many sign-in attempts from {who}. Try again in {minutes} min."
        return Refusal(text, seconds)


@dataclass(frozen=True)
class Refusal:
    """Why a sign-in attempt was refused before any check ran.

    Args:
        message: What the visitor is told.
        retry_after: Seconds until an attempt may be made again.
    """

    message: str
    retry_after: int


class LoginGuard:
    """ASGI middleware in front of gradio's `/login`: the throttle decides before any check.

    Args:
        app: The ASGI app behind it (gradio's).
        throttle: The app's `LoginThrottle`.
        proxies: The proxies whose `X-Forwarded-For` is believed (default none).
    """

    def __init__(self, app: Any, throttle: LoginThrottle, proxies: Proxies = NO_PROXIES):
        self.app, self.throttle, self.proxies = app, throttle, proxies

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or not _is_login(scope):
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive, MAX_FORM_BYTES)
        if body is None:
            await _answer(send, 413, "The sign-in form is too large.")
            return
        name = await _form_name(scope, body)
        refusal = self.throttle.refusal(name, scope_client(scope, self.proxies))
        if refusal is not None:
            logger.info("sign-in refused for %r: %s", name, refusal.message)
            await _answer(send, 429, refusal.message, refusal.retry_after)
            return
        status: list[int] = []

        async def recording_send(message: dict) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            await send(message)

        ran = await self.throttle.run(
            lambda: self.app(scope, _replay(body, receive), recording_send)
        )
        if not ran:
            await _answer(send, 429, BUSY, 60)
        elif status and status[0] != 200:  # gradio answers 400 to wrong credentials
            self.throttle.failed(name)


def _is_login(scope: dict) -> bool:
    root = scope.get("root_path", "")
    path = scope["path"][len(root) :] if root and scope["path"].startswith(root) else scope["path"]
    return path in LOGIN_PATHS


async def _read_body(receive: Callable, limit: int) -> bytes | None:
    """The request body, or None once it passes `limit` bytes (nothing more is read)."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, then: Callable | None = None) -> Callable:
    """A `receive` that hands the already-read `body` over again, then passes on to `then`
    (the server's, which tells of a disconnect)."""
    sent = False

    async def receive() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        if then is None:
            return {"type": "http.disconnect"}
        return await then()

    return receive


async def _form_name(scope: dict, body: bytes) -> str:
    """The `username` field of the login form (urlencoded or multipart), stripped."""
    try:
        form = await Request(scope, _replay(body)).form(max_files=0, max_fields=8)
    except Exception:  # a malformed form: gradio refuses it; count it for the empty name
        return ""
    name = form.get("username")
    return name.strip() if isinstance(name, str) else ""


async def _answer(send: Callable, status: int, detail: str, retry_after: int = 0) -> None:
    headers = [(b"content-type", b"application/json")]
    if retry_after:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": json.dumps({"detail": detail}).encode()})
