"""Signed-in owners through the real event adapters: the profile injected the way gradio
passes it to handlers after "Sign in with Hugging Face" (the OAuth round trip itself needs the
Hub and is not run here)."""

from __future__ import annotations

import gradio as gr

from smolui.auth import AuthConfig, SignIn
from smolui.handlers.chat import ChatHandlers
from smolui.turns.admission import TurnAdmission
from smolui.ui.wiring import adapters
from tests.smolui.test_conversations import App

SPACE = {"HF_TOKEN": "hf_unused"}  # lets `hf` mode be built here; no request reaches the Hub


def profile(name: str) -> gr.OAuthProfile:
    return gr.OAuthProfile(
        {"name": name.title(), "preferred_username": name, "profile": "", "picture": ""}
    )


def test_a_hf_user_finds_their_conversations_from_any_browser(tmp_path):
    app = App(f"sqlite:///{tmp_path / 'store.db'}", tmp_path / "data")
    try:
        sign_in = SignIn(AuthConfig(mode="hf"), environ=SPACE)
        gate = TurnAdmission(sign_in)
        app.chat = ChatHandlers(app.registry, app.chat.config, app.keeper, admission=gate)
        fn = adapters(app.chat, app.pages, sign_in)
        page = gr.Request(username=None, session_hash="page-1")
        julien = profile("julien")
        conversation_id, chat, _store, *_ = fn["load"]({}, page, julien)
        shown, pending = app.chat.echo({"text": "My favourite is teal", "files": []}, chat)
        final, _ = list(fn["run"](pending, shown, [], conversation_id, page, julien))[-1]
        assert "Noted teal." in str(final)
        assert app.keeper.store.owner_of(conversation_id) == "hf:julien"

        # Another browser (its own random key), same HF account: the conversation is listed.
        other = gr.Request(username=None, session_hash="page-2")
        _, _, _, _, store, radio, *_ = fn["load"]({"owner": "k" * 43}, other, julien)
        assert conversation_id in [value for _, value in radio.choices]
        # Someone else, or nobody signed in: not listed, and their turns are refused.
        _, _, _, _, _, radio, *_ = fn["load"]({}, other, profile("mallory"))
        assert conversation_id not in [value for _, value in radio.choices]
        anonymous_id, chat, *_ = fn["load"]({}, other, None)
        shown, pending = app.chat.echo({"text": "hello", "files": []}, chat)
        refused, _ = list(fn["run"](pending, shown, [], anonymous_id, other, None))[-1]
        assert "Sign in with Hugging Face" in str(refused)
    finally:
        app.close()
