"""The page's window on a long chat, in gradio's terms: the Chatbot holds the last messages
(`smolui.render.chat_window`), a `gr.State` holds the ones before them on the server, and
"Earlier messages (N)" above the chat brings them back a window at a time.

Every event that shows a chat goes through `PageWindow`: its inputs are the window the page
holds and the held-back messages (joined by `full`), its outputs the new window, the
held-back messages and the button (`cut`). A turn's streamed updates carry only the window
(`tail`): the earlier messages are neither sent nor processed again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from smolui.render.chat_window import (
    CHAT_WINDOW,
    earlier_start,
    full_index,
    messages_seen,
    window_start,
)
from smolui.ui.endpoints import INTERNAL

Message = dict[str, Any]

# After earlier messages are shown the chat scrolls to its top, where they now are (gradio's
# autoscroll would otherwise leave the person at the bottom, far from what they asked for).
SCROLL_TO_TOP_JS = """() => {
  const chat = document.querySelector('#chat .bubble-wrap') || document.querySelector('#chat');
  if (chat) chat.scrollTop = 0;
}"""


def earlier_label(count: int) -> str:
    """The button's text for `count` messages held back.

    Args:
        count: Messages a person sees before the window: theirs and the answers
            (`messages_seen`), not the steps' blocks.
    """
    return f"↑ Earlier messages ({count})"


class PageWindow:
    """Cuts the chats the page is sent to a window, and joins them back for the handlers.

    Args:
        chatbot: The page's Chatbot (the window).
        earlier: The `gr.State` of the messages before the window.
        button: The "Earlier messages" button above the chat.
        size: Messages in a window (0: the page holds the whole chat).
    """

    def __init__(self, chatbot: Any, earlier: Any, button: Any, size: int = CHAT_WINDOW):
        if size < 0:
            raise ValueError(f"the chat window holds 0 (off) or more messages, not {size}")
        self.chatbot = chatbot
        self.earlier = earlier
        self.button = button
        self.size = size

    @property
    def inputs(self) -> list[Any]:
        """The components that make up the chat shown: the window, then the held-back part."""
        return [self.chatbot, self.earlier]

    @property
    def outputs(self) -> list[Any]:
        """What `cut` returns, in order: the window, the held-back part, the button."""
        return [self.chatbot, self.earlier, self.button]

    @staticmethod
    def full(window: list[Message] | None, earlier: list[Message] | None) -> list[Message]:
        """The conversation's chat: the held-back messages, then the window.

        Args:
            window: The Chatbot's value.
            earlier: The held-back messages.
        """
        return list(earlier or []) + list(window or [])

    @staticmethod
    def index(earlier: list[Message] | None, index: int) -> int:
        """The conversation's index of the message the page counts as `index`.

        Args:
            earlier: The held-back messages.
            index: A position in the window.
        """
        return full_index(len(earlier or []), index)

    def cut(self, chat: list[Message], keep: int | None = None) -> tuple[Any, Any, Any]:
        """The window, the held-back messages and the button for `chat`.

        Args:
            chat: The conversation's whole chat.
            keep: A message the window must show (the one just acted on), or None.
        """
        chat = list(chat or [])
        start = window_start(chat, self.size, keep)
        return chat[start:], chat[:start], self.button_update(chat[:start])

    @staticmethod
    def tail(chat: list[Message], earlier: list[Message] | None) -> list[Message]:
        """The window of a chat that grew at its end (a turn's update).

        Args:
            chat: The conversation's whole chat.
            earlier: The held-back messages (the chat's first messages).
        """
        return chat[len(earlier or []) :]

    def button_update(self, held_back: list[Message]) -> Any:
        """The button: shown, with the count a person understands, while messages are held
        back.

        Args:
            held_back: The messages before the window.
        """
        import gradio as gr

        count = messages_seen(held_back)
        return gr.Button(value=earlier_label(count), visible=bool(held_back))

    def show_earlier(self, window: Any, earlier: Any) -> tuple[Any, Any, Any]:
        """About a window's worth of earlier messages added at the top.

        Args:
            window: The Chatbot's value.
            earlier: The held-back messages.
        """
        chat = self.full(window, earlier)
        start = earlier_start(chat, len(earlier or []), self.size)
        return chat[start:], chat[:start], self.button_update(chat[:start])

    def wire(self, refresh: Callable[[Any], Any]) -> None:
        """Attach the button (call inside the Blocks).

        Args:
            refresh: Chains the versions' refresh after an event (their places moved).
        """
        quiet = dict(queue=False, show_progress="hidden")
        shown = self.button.click(
            self.show_earlier, self.inputs, self.outputs, **quiet, api_visibility=INTERNAL
        )
        refresh(shown.then(None, None, None, js=SCROLL_TO_TOP_JS, **quiet, api_visibility=INTERNAL))
