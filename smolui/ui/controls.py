"""The control buttons follow the turn's state: Stop only while running, short notices when
Stop or Retry have nothing to act on (Clear asks first: see smolui/assets/smolui.js).

`smolui.ui.wiring` routes the Stop and Retry clicks through these adapters; `stop_button`
gives the update that enables or disables Stop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from smolui.handlers.chat import ChatHandlers
from smolui.handlers.message_actions import NOTHING_TO_RETRY as NOTHING_TO_RETRY
from smolui.handlers.message_actions import RETRY_AFTER_STOP as RETRY_AFTER_STOP
from smolui.handlers.message_actions import STILL_RUNNING as STILL_RUNNING
from smolui.handlers.message_actions import MessageActions
from smolui.render.messages import Message

NOTHING_RUNNING = "Nothing is running."
RETRY_CANCELLED = "The waiting retry is cancelled."
# Asked by the page's script (smolui/assets/smolui.js) before a Clear click reaches gradio.
CLEAR_QUESTION = "Clear this conversation? The agent forgets it and its files are removed."


def stop_button(running: bool) -> Any:
    """The update for the Stop button: enabled only while a turn runs.

    Args:
        running: Whether a turn runs now.
    """
    import gradio as gr

    return gr.Button(interactive=running)


def stop_adapter(chat: ChatHandlers) -> Callable[[Any], None]:
    """Stop, or a short notice when this conversation runs nothing (a message the page
    shows whose turn has not arrived yet counts as running: see `StopsBeforeStart`); a
    retry waiting for the stopped turn (see `MessageActions.retry`) is cancelled instead.

    Args:
        chat: The page's handlers.
    """

    def stop(conversation_id: Any) -> None:
        import gradio as gr

        session = chat.registry.get(conversation_id)
        if session is not None and session.retry_after_stop:
            session.retry_after_stop = False  # its turn sees this and does not run
            gr.Info(RETRY_CANCELLED)
            return
        if not chat.stop(conversation_id):  # neither running nor on its way
            gr.Info(NOTHING_RUNNING)

    return stop


def retry_adapter(chat: ChatHandlers) -> Callable[[list, Any], tuple]:
    """Retry (as the chat's own retry icon does), saying why when it cannot; also enables
    Stop when a retry starts.

    Args:
        chat: The page's handlers.
    """

    actions = MessageActions(chat)

    def retry(history: list[Message], conversation_id: Any) -> tuple:
        import gradio as gr

        result = actions.retry(history, conversation_id)
        if result.notice:
            gr.Info(result.notice)
        return result.chat, result.pending, stop_button(result.pending is not None)

    return retry
