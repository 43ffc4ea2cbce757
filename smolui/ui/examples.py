"""The example cards under the message box: a click sends one as a typed message is sent."""

from collections.abc import Callable
from typing import Any

from smolui.ui.layout import Layout

BUSY = "The agent is still busy with the previous message. Try again shortly."


def wire_examples(
    ui: Layout,
    send: Callable[[Callable, Callable, Any], None],
    echo: Callable,
    live: Callable[[Any], Any],
) -> None:
    """A click on an example sends it, with its bundled files, as a typed message is sent
    (call inside `with layout.demo:`). A stale index, a page that has not loaded its
    conversation yet, or one whose turn still runs sends nothing.

    Args:
        ui: The page's components (its `examples` gallery; None: no examples).
        send: Wires a message's way out: `send(trigger, echo, message_component)`.
        echo: The echo adapter of a typed message.
        live: The live conversation of an id, or None (`SessionRegistry.get`).
    """
    import gradio as gr

    if ui.examples is None:
        return
    gallery = ui.examples

    def echo_example(index: Any, history: list, earlier: list, conversation_id: Any) -> tuple:
        # A failed echo starts no turn (`send` goes on only on success).
        stale = not isinstance(index, int) or not 0 <= index < len(gallery.samples)
        if stale or not conversation_id:
            raise gr.Error("No example sent.", visible=False, print_exception=False)
        session = live(conversation_id)
        if session is not None and session.busy:  # its chat was cleared while a turn ends
            raise gr.Error(BUSY, print_exception=False)
        # The gallery holds each example as the box's value, its files copied into gradio's
        # cache when the page was built.
        return echo(gallery.samples[index][0], history, earlier, conversation_id)

    send(gallery.click, echo_example, gallery)
