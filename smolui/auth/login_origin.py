"""Sign-in only from the app's own page: a login form posted by another site is refused.

Gradio's `/login` takes a plain form, which any web page can post from a visitor's browser
without asking (a form needs no CORS preflight), and the answer's cookie is kept even with
`SameSite=Lax` (a top-level navigation). A foreign page could so sign a visitor in to the
attacker's account; what they then type and upload lands where the attacker reads it
("login CSRF"). Browsers name the page that posts in `Origin`, so a login whose `Origin`
is not the app's own host is refused with 403 before any password check. A request with no
`Origin` (a script, an old client) cannot act for a visitor's browser and passes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from smolui.auth.proxy_peers import NO_PROXIES, Proxies
from smolui.auth.throttle import LOGIN_PATHS

FOREIGN = "Sign in from this app's own page."
DEFAULT_PORTS = {"http": 80, "https": 443}


class SameOriginLogin:
    """ASGI middleware in front of gradio's `/login`: refuses a form posted by another site.

    Args:
        app: The ASGI app behind it (gradio's).
        proxies: The proxies in front (default none); from one of their peers, the host the
            browser asked for may come as `X-Forwarded-Host` (from anyone else it is ignored).
    """

    def __init__(self, app: Any, proxies: Proxies = NO_PROXIES):
        self.app, self.proxies = app, proxies

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and _is_login(scope):
            origin = _header(scope, b"origin")
            if origin is not None and not self._own(origin, scope):
                await _refuse(send)
                return
        await self.app(scope, receive, send)

    def _own(self, origin: str, scope: dict) -> bool:
        """Whether `origin` names the host this request was sent to."""
        try:
            parts = urlsplit(origin.strip())
            port = parts.port or DEFAULT_PORTS.get(parts.scheme)
        except ValueError:  # "null" (a sandboxed frame, a file) or garbage
            return False
        if not parts.hostname:
            return False
        hosts = [_header(scope, b"host")]
        client = scope.get("client")
        if self.proxies.believes(str(client[0]) if client else None, forwarded=False):
            hosts.append(_header(scope, b"x-forwarded-host"))
        wanted = (parts.hostname.lower(), port)
        return any(_host_port(host, port) == wanted for host in hosts if host)


def _is_login(scope: dict) -> bool:
    root, path = scope.get("root_path", ""), scope["path"]
    return (path[len(root) :] if root and path.startswith(root) else path) in LOGIN_PATHS


def _host_port(host: str, default_port: int | None) -> tuple[str, int | None]:
    """`("example.org", 443)` from a Host header `example.org` (the origin's scheme's port
    when it names none) or `example.org:443`."""
    host = host.split(",")[0].strip().lower()
    try:
        parts = urlsplit(f"//{host}")
        return (parts.hostname or "", parts.port or default_port)
    except ValueError:
        return ("", None)


def _header(scope: dict, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return value.decode("latin-1")
    return None


async def _refuse(send: Callable) -> None:
    body = json.dumps({"detail": FOREIGN}).encode("utf-8")
    headers = [(b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": 403, "headers": headers})
    await send({"type": "http.response.body", "body": body})


__all__ = ["SameOriginLogin"]
