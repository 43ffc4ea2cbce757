"""The page's window through the real message-action adapters: an edit made on a message of
a window scrolled part-way back acts on that message of the conversation, the switchers are
placed by the window's own count, and a switch keeps the switched message in view. Real
store (SQLite file), real CodeAgent, scripted model."""

from __future__ import annotations

import gradio as gr

from smolui.render.chat_window import shown_versions
from smolui.ui.chat_window import PageWindow
from smolui.ui.message_actions import action_adapters
from tests.smolui.test_message_branches import WORDS, App


def user_texts(chat: list) -> list[str]:
    return [str(m["content"]) for m in chat if m.get("role") == "user"]


def test_an_edit_in_a_scrolled_back_window_changes_the_message_it_was_made_on(tmp_path):
    app = App(f"sqlite:///{tmp_path / 'store.db'}", tmp_path / "data")
    try:
        conversation_id, chat, _, _ = app.pages.load(None, page="p1")
        for word in WORDS:
            chat = app.send(f"Grow {word}?", conversation_id, chat)
        window = PageWindow(None, None, None, size=2)  # one turn at a time (a question, its answer)
        shown, earlier, button = window.cut(chat)
        assert user_texts(shown) == ["Grow mint?"] and button.visible is True
        shown, earlier, _ = window.show_earlier(shown, earlier)
        assert user_texts(shown) == ["Grow pepper?", "Grow mint?"]
        assert earlier and window.full(shown, earlier) == chat

        # The page counts "Grow pepper?" as its message 0; the conversation, after two turns.
        data = {"index": 0, "value": "Grow sage?", "previous_value": "Grow pepper?"}
        edit = action_adapters(app.chat, window)["edit"]
        shown, earlier, _, pending, *_ = edit(
            shown, earlier, conversation_id, gr.EditData(None, data)
        )
        assert pending is not None
        whole = window.full(shown, earlier)
        assert user_texts(whole) == ["Grow tomato?", "Grow basil?", "Grow sage?"]
        assert user_texts(shown) == ["Grow sage?"]  # the window is back at the chat's end
        whole = app.run(type("Result", (), {"pending": pending, "chat": whole}), conversation_id)
        assert "saw tomato basil" in str(whole[-2]["content"])

        # Its switcher sits on the window's first turn; the click names the conversation's
        # message; the old branch comes back with the switched message in view.
        shown, earlier, _ = window.cut(whole)
        versions = app.actions.versions(conversation_id)
        assert [v["turn"] for v in versions] == [2]
        placed = shown_versions(versions, whole, len(earlier))
        assert [(v["turn"], v["position"]) for v in placed] == [(0, versions[0]["position"])]
        switched = app.actions.switch(whole, conversation_id, versions[0]["position"], -1)
        shown, earlier, _ = window.cut(switched.chat, keep=versions[0]["position"])
        assert user_texts(shown) == ["Grow pepper?", "Grow mint?"]
    finally:
        app.close()
