"""Who is signed in, beside the page's title, and the way to sign out.

With a password, "Sign out" is a link to gradio's `/logout`, which ends this browser's
sign-in on the server and brings back the sign-in page. With Hugging Face, gradio's
`LoginButton` beside the name signs out (and in). Without sign-in nothing is shown.
"""

# No `from __future__ import annotations` here: gradio reads the `gr.Request` and
# `gr.OAuthProfile` annotations of `shown` below at runtime to inject them.

import html
from typing import Any

import gradio as gr

from smolui.auth import Identity, SignIn

# Relative, so that it stays under the path the app is served at. `all_session=false`: the
# sign-in of this browser ends, not the same user's in their other browsers.
SIGN_OUT_URL = "logout?all_session=false"
SIGN_OUT = "Sign out"
MIN_WIDTH = 220  # px: "Signed in as" a name of a dozen letters and "Sign out" on one line
# Scoped to the component by gradio; the theme's colours keep the contrast in light and dark.
_STYLE = """
.smolui-account { display: flex; flex-wrap: wrap; justify-content: flex-end;
  align-items: baseline; gap: 4px 12px; margin: 0; color: var(--body-text-color); }
.smolui-account a { color: var(--link-text-color); text-decoration: underline;
  text-underline-offset: 2px; }
"""


def account_line(identity: Identity, mode: str) -> str:
    """The HTML beside the title: the signed-in name, and a sign-out link with a password
    ("" for a visitor who did not sign in).

    Args:
        identity: Who the page belongs to.
        mode: The sign-in mode ("none", "password" or "hf").
    """
    if not identity.signed_in:
        return ""
    name = html.escape(str(identity.name))
    who = f"<span>Signed in as <strong>{name}</strong></span>"
    if mode != "password":  # Hugging Face: the LoginButton beside it signs out
        return f'<p class="smolui-account">{who}</p>'
    link = f'<a class="smolui-sign-out" href="{SIGN_OUT_URL}">{SIGN_OUT}</a>'
    return f'<p class="smolui-account">{who}{link}</p>'


def account_bar(sign_in: SignIn | None) -> Any:
    """The signed-in line (and the Hugging Face button) for beside the header, filled in when
    a page loads (call inside the Blocks, in the header's row); nothing without sign-in.

    Args:
        sign_in: The app's sign-in (None or mode "none": nothing is added).

    Returns:
        The `gr.HTML` of the line, or None.
    """
    if sign_in is None or sign_in.mode == "none":
        return None
    # Beside the title on a wide screen; under it where the two do not fit (a phone).
    with gr.Column(scale=0, min_width=MIN_WIDTH, elem_classes="smolui-account-column"):
        line = gr.HTML("", css_template=_STYLE, js_on_load=None, elem_classes="smolui-who")
        sign_in.add_button()  # Hugging Face's sign-in / sign-out button; None otherwise

    def shown(request: gr.Request, profile: gr.OAuthProfile | None) -> str:
        return account_line(sign_in.identify(request, profile), sign_in.mode)

    # With no trigger and no input, `gr.on` runs when a page loads.
    gr.on(None, shown, None, line, queue=False, show_progress="hidden", api_visibility="private")
    return line
