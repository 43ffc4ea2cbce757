"""The message box holds still while the page opens another conversation.

"+ New chat", a conversation picked in the list, Delete and Delete all ask the server which
conversation the page shows next; until its answer lands, the page still holds the one it
leaves, so a message typed and sent in that moment (a quick person, a slow server) went into
the conversation being left. The box is made read-only in the browser as the click happens
(no round trip) and the answer sets it again, as for any conversation opened: ready, or held
while that conversation's turn runs. A failed answer gives the box back.
"""

from __future__ import annotations

from typing import Any

# Gradio runs an event's `js` in the browser; with no `fn`, what it returns updates the outputs.
_HOLD = "() => ({__type__: 'update', interactive: false})"
_RELEASE = "() => ({__type__: 'update', interactive: true})"


def hold_box(trigger: Any, textbox: Any) -> None:
    """Make the message box read-only, in the browser, as soon as `trigger` fires.

    Args:
        trigger: The event listener of a control that opens another conversation
            (`button.click`, `radio.input`); wire this before the opening itself.
        textbox: The message box.
    """
    trigger(None, None, [textbox], js=_HOLD, queue=False, show_progress="hidden")


def release_on_failure(event: Any, textbox: Any) -> None:
    """Give the message box back when the opening `event` fails (nothing else opened).

    Args:
        event: The dependency the opening's listener returned.
        textbox: The message box.
    """
    event.failure(None, None, [textbox], js=_RELEASE, queue=False, show_progress="hidden")
