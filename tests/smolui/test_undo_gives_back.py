"""Undo gives the undone message back to the message box, to be changed and sent again (as
gradio's own undo does); its files are left out (they are attached again). Real store
(SQLite file), real CodeAgent with its in-process executor, scripted model."""

from __future__ import annotations

from smolui.handlers.message_actions import NOTHING_TO_UNDO, MessageActions
from smolui.ui.chat_window import PageWindow
from smolui.ui.message_actions import action_adapters
from tests.smolui.test_message_branches import App, answers, two_turns


def test_undo_puts_the_last_message_back_in_the_box(tmp_path):
    app = App(f"sqlite:///{tmp_path / 'store.db'}", tmp_path / "data")
    try:
        conversation_id, chat = two_turns(app)
        undo = action_adapters(app.chat, PageWindow(None, None, None))["undo"]
        shown, earlier, _, box = undo(chat, [], conversation_id)
        assert answers(earlier + shown) == ["saw tomato"]
        assert box.value["text"] == "basil"
        # Sent again, it is answered as the second turn of what the agent remembers.
        chat = app.send(box.value["text"], conversation_id, earlier + shown)
        assert answers(chat) == ["saw tomato", "saw tomato basil"]
    finally:
        app.close()


def test_the_text_of_a_turn_with_files_comes_back_without_them():
    history = [
        {"role": "user", "content": {"path": "/uploads/notes.pdf", "mime_type": "application/pdf"}},
        {"role": "user", "content": [{"type": "text", "text": "Summarise this."}]},
        {"role": "assistant", "content": "A summary."},
    ]
    result = MessageActions(_NoChat()).undo(history, None)  # type: ignore[arg-type]
    assert result.chat == [] and result.given_back == "Summarise this."


def test_nothing_to_undo_leaves_the_box_alone():
    undo = action_adapters(_NoChat(), PageWindow(None, None, None))["undo"]
    *_, box = undo([], [], None)
    assert not hasattr(box, "value"), "gr.skip(): what the person typed stays"
    result = MessageActions(_NoChat()).undo([], None)  # type: ignore[arg-type]
    assert result.notice == NOTHING_TO_UNDO and result.given_back is None


class _NoChat:
    """Handlers with no live conversation and no store (the actions look nothing up)."""

    keeper = None

    class registry:  # noqa: N801 - stands for the handlers' registry attribute
        @staticmethod
        def get(conversation_id):
            return None
