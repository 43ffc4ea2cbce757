"""Who a plain HTTP request to one of the app's own routes comes from (the share page, the
download links): these are not gradio events, so the visitor is read from the sign-in of the
gradio app served beside them, as `SignIn.identify` reads it for an event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from smolui.auth import Identity

# Who a plain HTTP request comes from.
Viewer = Callable[[Any], Identity]


def gradio_viewer(sign_in: Any) -> Viewer:
    """Who a plain HTTP request comes from, by the sign-in of the gradio app it is served
    beside: the login cookie of password sign-in, the session of Hugging Face sign-in. The
    identity is the one `SignIn.identify` gives a gradio event.

    Args:
        sign_in: The app's `SignIn`.
    """
    from types import SimpleNamespace

    def identify(request: Any) -> Identity:
        gradio_app = _gradio_app(request)
        if gradio_app is None:
            return Identity()
        if sign_in.mode == "password":
            event = SimpleNamespace(username=_password_user(gradio_app, request),
                                    client=request.client, headers=request.headers)  # fmt: skip
            return sign_in.identify(event)
        if sign_in.mode == "hf":
            profile = _hf_profile(gradio_app, request)
            return sign_in.identify(None, profile) if profile else Identity()
        return Identity()

    return identify


def _gradio_app(request: Any) -> Any:
    """The gradio app mounted beside the app's own routes (None when there is none).

    Gradio private, checked against 6.31: `gr.mount_gradio_app` mounts its `App` (a FastAPI
    with `tokens` and `cookie_id`, as its own routes read them) on the parent app.
    """
    for route in getattr(request.app, "routes", []):
        app = getattr(route, "app", None)
        if hasattr(app, "tokens") and hasattr(app, "cookie_id"):
            return app
    return None


def _password_user(gradio_app: Any, request: Any) -> str | None:
    """The user gradio's login cookie names (gradio private, as `_gradio_app` says)."""
    cookie_id = gradio_app.cookie_id
    token = request.cookies.get(f"access-token-{cookie_id}") or request.cookies.get(
        f"access-token-unsecure-{cookie_id}"
    )
    user = gradio_app.tokens.get(token) if token else None
    return str(user) if user else None


def _hf_profile(gradio_app: Any, request: Any) -> dict | None:
    """The Hugging Face profile in gradio's signed session cookie, or None.

    Gradio private, checked against 6.31: its OAuth keeps `oauth_info` (with `userinfo` and
    `expires_at`) in Starlette's `SessionMiddleware` on its own app; that middleware's signer
    reads the cookie here.
    """
    import base64
    import json
    import time

    layer = getattr(gradio_app, "middleware_stack", None)
    while layer is not None and not hasattr(layer, "signer"):
        layer = getattr(layer, "app", None)
    cookie = request.cookies.get(getattr(layer, "session_cookie", "session")) if layer else None
    if not cookie:
        return None
    try:
        data = layer.signer.unsign(cookie.encode("utf-8"), max_age=layer.max_age)
        info = json.loads(base64.b64decode(data)).get("oauth_info") or {}
    except Exception:  # a forged, expired or foreign cookie: not signed in
        return None
    if float(info.get("expires_at") or 0) < time.time():
        return None
    profile = info.get("userinfo")
    return profile if isinstance(profile, dict) else None


__all__ = ["Viewer", "gradio_viewer"]
