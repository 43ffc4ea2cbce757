"""The control buttons follow the turn's state: Stop only while running, short notices when
Stop or Retry have nothing to act on, and Clear asks first.

`smolui.wiring` routes the Stop and Retry clicks through these adapters; `stop_button`
gives the update that enables or disables Stop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from smolui.handlers import ChatHandlers
from smolui.render import Message

NOTHING_RUNNING = "Nothing is running."
NOTHING_TO_RETRY = "There is no message to retry yet."
STILL_RUNNING = "The agent is still answering: stop it first, then retry."
CLEAR_QUESTION = "Clear this conversation? The agent forgets it and its files are removed."
# Runs in the browser before the Clear click reaches the server: cancelling throws, so the
# click goes no further. A State input arrives as null here; the server keeps its value.
CLEAR_CONFIRM_JS = (
    "(...args) => { if (!window.confirm(" + repr(CLEAR_QUESTION) + ")) "
    "{ throw new Error('clear cancelled'); } return args; }"
)


def stop_button(running: bool) -> Any:
    """The update for the Stop button: enabled only while a turn runs.

    Args:
        running: Whether a turn runs now.
    """
    import gradio as gr

    return gr.Button(interactive=running)


def stop_adapter(chat: ChatHandlers) -> Callable[[Any], None]:
    """Stop, or a short notice when this conversation runs nothing.

    Args:
        chat: The page's handlers.
    """

    def stop(conversation_id: Any) -> None:
        import gradio as gr

        session = chat.registry.get(conversation_id)
        if session is None or not session.busy:
            gr.Info(NOTHING_RUNNING)
            return
        chat.stop(conversation_id)

    return stop


def retry_adapter(chat: ChatHandlers) -> Callable[[list, Any], tuple]:
    """Retry, saying why when it cannot; also enables Stop when a retry starts.

    Args:
        chat: The page's handlers.
    """

    def retry(history: list[Message], conversation_id: Any) -> tuple:
        import gradio as gr

        session = chat.registry.get(conversation_id)
        shown, pending = chat.retry(history, conversation_id)
        if pending is None:
            busy = session is not None and session.busy
            gr.Info(STILL_RUNNING if busy else NOTHING_TO_RETRY)
        return shown, pending, stop_button(pending is not None)

    return retry
