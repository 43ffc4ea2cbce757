"""Who is signed in, beside the title: a name and "Sign out" with a password, a name beside
gradio's own button with Hugging Face, nothing without sign-in (the browser half is
tests/e2e/test_sign_out_e2e.py)."""

from __future__ import annotations

import gradio as gr

from smolui.auth import AuthConfig, Identity, SignIn
from smolui.ui.account import SIGN_OUT_URL, account_line
from smolui.ui.layout import build_layout
from tests.smolui.test_auth import SPACE


def test_a_password_user_is_named_with_a_way_out_and_a_name_cannot_inject_markup():
    line = account_line(Identity(provider="password", name="alice"), "password")
    assert "Signed in as <strong>alice</strong>" in line
    assert f'href="{SIGN_OUT_URL}">Sign out</a>' in line and SIGN_OUT_URL.startswith("logout")
    forged = account_line(
        Identity(provider="password", name='<img src=x onerror="x()">'), "password"
    )
    assert "<img" not in forged and "&lt;img" in forged


def test_a_hugging_face_user_is_named_and_gradio_s_button_signs_out():
    line = account_line(Identity(provider="hf", name="alice"), "hf")
    assert "Signed in as <strong>alice</strong>" in line and "logout" not in line
    assert account_line(Identity(), "hf") == "", "not signed in: the button says Sign in"


def test_the_page_holds_the_line_only_where_visitors_sign_in(monkeypatch):
    import gradio.oauth

    plain = build_layout("t", [".txt"], sign_in=SignIn(AuthConfig()))
    assert not _who(plain.demo)

    for name, value in SPACE.items():  # as on a Space with `hf_oauth: true`
        monkeypatch.setenv(name, value)
        if hasattr(gradio.oauth, name):
            monkeypatch.setattr(gradio.oauth, name, value)
    hf = build_layout("t", [".txt"], sign_in=SignIn(AuthConfig(mode="hf")))
    (line,) = _who(hf.demo)
    buttons = [b for b in hf.demo.blocks.values() if isinstance(b, gr.LoginButton)]
    assert len(buttons) == 1 and hf.demo.expects_oauth
    # The name and the button sit together, in the header's row.
    assert line.parent is buttons[0].parent and "smolui-top" in line.parent.parent.elem_classes
    # A page's load fills the line from the profile gradio injects after a sign-in.
    (fill,) = [f.fn for f in hf.demo.fns.values() if [o._id for o in f.outputs] == [line._id]]
    assert "Signed in as <strong>alice</strong>" in fill(None, {"preferred_username": "alice"})
    assert fill(None, None) == ""


def _who(demo) -> list:
    return [
        block
        for block in demo.blocks.values()
        if isinstance(block, gr.HTML) and "smolui-who" in (block.elem_classes or [])
    ]
