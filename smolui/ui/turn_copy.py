"""Each answer's "Copy turn as Markdown": the page script's button asks the server for that
turn as Markdown, rendered by the export's renderer (`smolui.render.export.turn_markdown`).

The page names the turn by its place among the rows it shows; the chat read is the one the
page sends (the branch shown, the page's own conversation and nothing else), so nothing is
read from the store or the disk, and the images keep the URLs the page loads them from.
"""

# No `from __future__ import annotations`, as in `smolui.ui.wiring`: gradio reads handler
# annotations at runtime.

from collections.abc import Callable
from typing import Any

from smolui.render.export import turn_markdown, turn_messages
from smolui.ui.endpoints import INTERNAL
from smolui.ui.layout import Layout

# The turn the page script asks for (`window.smoluiTurnAsked`, set by assets/copy.js before
# it presses the hidden button) goes to the server with the chat shown, and the page's root:
# the chat's files come back with links under it, as the page's own <img> load them.
ASK_JS = (
    "(chat, asked) => [chat, window.smoluiTurnAsked"
    " ? {...window.smoluiTurnAsked, root: window.gradio_config?.root || location.origin}"
    " : null]"
)
# The Markdown goes back to the page script, which puts it on the clipboard.
COPY_JS = "(markdown) => { window.smoluiTurnMarkdown?.(markdown); }"
NO_TURN = "That answer is no longer shown: nothing was copied."


def copied_turn(chat: Any, asked: Any) -> dict[str, Any]:
    """The turn the page asked for as Markdown (`{"markdown": ...}`), or why not
    (`{"error": ...}`).

    Args:
        chat: The chat the page shows (gradio's normalized messages).
        asked: `{"answered": n, "root": url}`: how many rows of the person's come before
            the answer, and the page's root URL.
    """
    asked = asked if isinstance(asked, dict) else {}
    answered = asked.get("answered")
    if not isinstance(answered, int) or isinstance(answered, bool) or answered < 0:
        return {"error": NO_TURN}
    turn = turn_messages(list(chat or []), answered)
    if not turn:
        return {"error": NO_TURN}
    return {"markdown": turn_markdown(turn, str(asked.get("root") or ""))}


def wire_turn_copy(ui: Layout, safe: Callable[[Callable], Callable]) -> None:
    """The hidden button the page script presses for "Copy turn as Markdown", and the answer
    it hands back (call inside `with layout.demo:`).

    Args:
        ui: The page's components.
        safe: Turns a handler's failure into a readable toast (`smolui.ui.failures.safe`).
    """
    import gradio as gr

    asked = gr.JSON(None, visible=False)
    markdown = gr.JSON(None, visible=False)
    # Kept out of sight and out of the Tab order by the page script (assets/copy.js).
    button = gr.Button("Ask for the turn as Markdown", elem_classes="smolui-turn-markdown")
    button.click(
        safe(copied_turn),
        [ui.chatbot, asked],
        [markdown],
        js=ASK_JS,
        queue=False,
        show_progress="hidden",
        api_visibility=INTERNAL,
    ).then(None, [markdown], None, js=COPY_JS, show_progress="hidden", api_visibility=INTERNAL)
