"""Sign in with Hugging Face (`SMOLUI_AUTH=hf`): the checks before gradio's OAuth, the button,
and the user name out of the profile gradio injects into handlers.

Gradio does the OAuth flow itself once the page holds a `gr.LoginButton`: on a Space with
`hf_oauth: true` in the README front matter it talks to huggingface.co; elsewhere it mocks the
sign-in with the account of the local HF token (and needs the network to ask whose it is).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from smolui.auth.config import AuthSetupError

SPACE_OAUTH_VARIABLES = (
    "OAUTH_CLIENT_ID",
    "OAUTH_CLIENT_SECRET",
    "OAUTH_SCOPES",
    "OPENID_PROVIDER_URL",
)
SIGN_IN_LABEL = "Sign in with Hugging Face"
SIGN_OUT_LABEL = "Sign out ({})"


def on_space(environ: Mapping[str, str]) -> bool:
    """True inside a Hugging Face Space (the way gradio tells).

    Args:
        environ: The environment.
    """
    return environ.get("SYSTEM") == "spaces" and bool(environ.get("SPACE_ID"))


def check_oauth_environment(environ: Mapping[str, str]) -> None:
    """Fail early, and say how to fix it, where gradio's OAuth could not work.

    Args:
        environ: The environment.

    Raises:
        AuthSetupError: On a Space without `hf_oauth: true`, outside a Space without an HF
            token, or without the OAuth client library.
    """
    try:
        import authlib  # noqa: F401
        import itsdangerous  # noqa: F401
    except ImportError as error:
        raise AuthSetupError(
            f"SMOLUI_AUTH=hf needs the OAuth libraries ({error.name} is missing): "
            "pip install authlib itsdangerous (both are in requirements.txt)"
        ) from None
    if on_space(environ):
        missing = [name for name in SPACE_OAUTH_VARIABLES if not environ.get(name)]
        if missing:
            raise AuthSetupError(
                f"SMOLUI_AUTH=hf: this Space has no OAuth app ({', '.join(missing)} not set). "
                "Add `hf_oauth: true` to the README front matter and restart the Space."
            )
        return
    if not (environ.get("HF_TOKEN") or environ.get("HUGGING_FACE_HUB_TOKEN")):
        raise AuthSetupError(
            "SMOLUI_AUTH=hf works on a Hugging Face Space with `hf_oauth: true` in its README. "
            "Outside a Space, gradio signs you in as the owner of your HF token (needs HF_TOKEN "
            "and the network); otherwise use SMOLUI_AUTH=password or none."
        )


def login_button() -> Any:
    """The "Sign in with Hugging Face" button (call inside the Blocks). Its presence is what
    makes gradio add the `/login/huggingface`, `/login/callback` and `/logout` routes."""
    import gradio as gr

    return gr.LoginButton(value=SIGN_IN_LABEL, logout_value=SIGN_OUT_LABEL, size="sm")


def profile_name(profile: Any) -> str | None:
    """The HF user name in the profile gradio injects (`gr.OAuthProfile | None`).

    Args:
        profile: The injected profile, or None when the visitor has not signed in.
    """
    if profile is None:
        return None
    name = profile.get("preferred_username") if isinstance(profile, Mapping) else None
    return str(name) if name else None
