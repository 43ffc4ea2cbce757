"""The turn a page asked for, waiting for the queued turn handler to run it.

Three kinds travel from the page's events to `ChatHandlers.run_turn`: a sent message (its
text and files), a Retry of the last request, and a Retry pressed while a stopped turn still
ends its step (it waits for that end). The echo, outside gradio's queue, leaves one in the
page's `gr.State`, which gradio deep-copies and keeps on the server: it never crosses JSON.
Only a held message going back into a page's message box crosses it (`as_box_value`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class PendingTurn:
    """What the next turn runs.

    Args:
        text: The message's text (empty for a retry, or a message of files only).
        files: Paths of the message's files (in gradio's upload cache).
        retry: Run the last request again instead of a new message.
        after_stop: A retry that waits for the stopped turn to end its step first.
        token: Set while the message is held for its conversation (`smolui.turns.unsent`).
    """

    text: str = ""
    files: tuple[str, ...] = ()
    retry: bool = False
    after_stop: bool = False
    token: str | None = None

    @classmethod
    def message(cls, text: str, files: Iterable[str] = ()) -> PendingTurn:
        """A message the visitor sent.

        Args:
            text: Its text.
            files: Paths of its attached files.
        """
        return cls(text=text, files=tuple(files))

    @classmethod
    def retry_last(cls, after_stop: bool = False) -> PendingTurn:
        """The last request again.

        Args:
            after_stop: Pressed while a stopped turn still ends its step: wait for it.
        """
        return cls(retry=True, after_stop=after_stop)

    def held(self, token: str) -> PendingTurn:
        """This message, marked with the token it is held under.

        Args:
            token: The hold's token.
        """
        return replace(self, token=token)

    def as_box_value(self) -> dict[str, Any]:
        """The message as a message box's value, to put it back in the box."""
        return {"text": self.text, "files": list(self.files)}
