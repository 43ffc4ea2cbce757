"""The login page tells a refused visitor why: gradio's page shows "Incorrect Credentials" on a
400 and nothing at all on any other answer, so a visitor throttled or locked out (429 from
`smolui.auth.throttle.LoginGuard`) saw the button do nothing. `LoginPageNotice` adds a small
script to the page that shows the refusal's own text (it says when to try again).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from smolui.auth.throttle import LOGIN_PATHS

NOTICE_ID = "smolui-login-refusal"
FALLBACK = "Too many sign-in attempts. Try again in a few minutes."
MAX_PAGE_BYTES = 2 * 1024 * 1024  # gradio's page is ~10 kB: a bigger answer is not it

# Watches the page's own sign-in request; the text is set with textContent, never as HTML.
_SCRIPT = """<script>(() => {
  const fallback = %s;
  const isLogin = (input) => {
    const url = new URL(typeof input === "string" ? input : input.url, location.href);
    return %s.some((end) => url.pathname.endsWith(end));
  };
  const show = (text) => {
    let box = document.getElementById("%s");
    if (!box) {
      box = document.createElement("p");
      box.id = "%s";
      box.setAttribute("role", "alert");
      box.style.cssText = "color: var(--error-text-color, #b91c1c); font-weight: 600;";
      const button = [...document.querySelectorAll("button")].find(
        (b) => b.textContent.trim().toLowerCase() === "login");
      (button ? button.parentElement : document.body).prepend(box);
    }
    box.textContent = text || fallback;
  };
  const original = window.fetch;
  window.fetch = async (input, init) => {
    const response = await original(input, init);
    if (response.status === 429 && isLogin(input)) {
      response.clone().json().then((body) => show(body.detail), () => show(fallback));
    }
    return response;
  };
})();</script>"""


def notice_script() -> bytes:
    """The script added to the page (before `</head>`)."""
    ends = [path.rstrip("/") for path in LOGIN_PATHS if path.rstrip("/")]
    text = _SCRIPT % (json.dumps(FALLBACK), json.dumps(ends), NOTICE_ID, NOTICE_ID)
    return text.encode()


class LoginPageNotice:
    """ASGI middleware: adds `notice_script` to the app's HTML pages (the login page is the
    app's page before sign-in), so a 429 from the sign-in shows its message.

    Args:
        app: The ASGI app behind it (gradio's).
    """

    def __init__(self, app: Any):
        self.app = app
        self.script = notice_script()

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        start: dict | None = None
        body: list[bytes] = []
        size = 0
        passing = False

        async def editing_send(message: dict) -> None:
            nonlocal start, size, passing
            if passing:
                await send(message)
            elif message["type"] == "http.response.start":
                if _is_plain_html(message.get("headers", [])):
                    start = message
                else:
                    passing = True
                    await send(message)
            elif message["type"] == "http.response.body":
                body.append(message.get("body", b""))
                size += len(body[-1])
                if size > MAX_PAGE_BYTES:  # not the page: hand it on as it came
                    passing = True
                    await send(start)
                    await send({**message, "body": b"".join(body)})
                elif not message.get("more_body", False):
                    await self._send_page(send, start, b"".join(body))

        await self.app(scope, receive, editing_send)

    async def _send_page(self, send: Callable, start: dict, page: bytes) -> None:
        page = page.replace(b"</head>", self.script + b"</head>", 1)
        headers = [
            (k, v) for k, v in start.get("headers", []) if bytes(k).lower() != b"content-length"
        ]
        headers.append((b"content-length", str(len(page)).encode()))
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": page, "more_body": False})


def _is_plain_html(headers: list) -> bool:
    """An uncompressed HTML answer (a compressed one is left as it is)."""
    found = {bytes(k).lower(): bytes(v).lower() for k, v in headers}
    return found.get(b"content-type", b"").startswith(b"text/html") and (
        b"content-encoding" not in found
    )
