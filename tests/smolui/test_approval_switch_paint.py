"""The "Ask me before running code or tools" box shows the effective setting from the page's
first paint: with `--approve code` a new page is ticked before any event of it runs (it
showed unticked until the first send, while the agent asked anyway), and a new chat without
its own setting shows the app's default, not the last conversation's box."""

from __future__ import annotations

import gradio as gr

from smolui.approvals import ChatApprovals
from smolui.ui.approvals import (
    REQUIRED_LABEL,
    approval_panel,
    approval_switch,
    panel_adapters,
    wire_approvals,
)


def first_paint(approvals: ChatApprovals) -> dict:
    """The switch's props in the page's configuration, as the browser first draws it."""
    with gr.Blocks() as page:
        chatbot, conversation_id = gr.Chatbot(), gr.State(None)
        switch = approval_switch()
        wire_approvals(approval_panel(switch), chatbot, conversation_id, approvals, lambda f: f)
    (props,) = [c["props"] for c in page.get_config_file()["components"]
                if c["props"].get("elem_id") == "approval-switch"]  # fmt: skip
    return props


def no_store():
    raise AssertionError("the first paint reads no database")


def test_the_box_is_ticked_from_the_first_paint_when_the_app_asks_about_code():
    assert first_paint(ChatApprovals("code", no_store))["value"] is True
    assert first_paint(ChatApprovals("never", no_store))["value"] is False
    required = first_paint(ChatApprovals("never", no_store, required=True))
    assert required["value"] is True and required["interactive"] is False
    assert required["label"] == REQUIRED_LABEL


def test_a_new_chat_without_its_own_setting_shows_the_apps_default():
    refresh = panel_adapters(ChatApprovals("code", no_store))["refresh"]
    # The page showed a conversation whose box was off; "+ New chat" has no id yet.
    *_, switch, seen, _ = refresh(None, None, "c-previous")
    assert switch.value is True and seen is None
