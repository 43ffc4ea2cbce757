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


def opening(trigger: Any, textbox: Any, *args: Any, **kwargs: Any) -> Any:
    """Wire an event that opens another conversation, holding the message box meanwhile.

    The box is made read-only in the browser as soon as `trigger` fires (an event of its own,
    wired first); `trigger(*args, **kwargs)` is the opening itself, whose answer sets the box;
    when it fails, the box is given back.

    Args:
        trigger: The event listener of the control (`button.click`, `radio.input`).
        textbox: The message box.
        *args: The opening's handler, inputs and outputs, as `trigger` takes them.
        **kwargs: The opening's options, as `trigger` takes them.

    Returns:
        The opening's dependency (for a `.then`).
    """
    in_browser = dict(queue=False, show_progress="hidden")
    trigger(None, None, [textbox], js=_HOLD, **in_browser)
    opened = trigger(*args, **kwargs)
    opened.failure(None, None, [textbox], js=_RELEASE, **in_browser)
    return opened
