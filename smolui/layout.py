"""The page: a Blocks layout with the chat, the message box, controls and a side panel.

Only components are created here; `smolui.wiring` attaches the events.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

ASSETS = Path(__file__).parent / "assets"
SAMPLE_DOCUMENT = ASSETS / "greenhouse_report.pdf"
STORAGE_KEY = "smolui-conversations"
# The page ships this to the browser, so it is an obfuscation key, not a secret: a fixed
# value keeps stored conversations readable across server restarts.
DEFAULT_STATE_KEY = "smolui-browser-state"


def default_examples() -> list[dict[str, Any]]:
    """Example prompts; one comes with the bundled sample document."""
    return [
        {"text": "What is the 20th Fibonacci number? Compute it with code.", "files": []},
        {"text": "Summarize the attached report and compute the total harvest and the "
                 "harvest per litre of water for each bay.", "files": [str(SAMPLE_DOCUMENT)]},
        {"text": "Draw a bar chart of the squares of 1 to 10 and show it to me.", "files": []},
    ]  # fmt: skip


@dataclass
class Layout:
    """The page's components, for wiring."""

    demo: Any
    chatbot: Any
    textbox: Any
    stop: Any
    retry: Any
    clear: Any
    new_chat: Any
    conversations: Any
    panel: Any
    export_md: Any
    export_json: Any
    export_file: Any
    store: Any
    conversation_id: Any
    pending: Any


def _sidebar() -> tuple[Any, ...]:
    """New chat, past conversations, the side panel and export (inside a Blocks context)."""
    import gradio as gr

    with gr.Sidebar(label="Conversations", open=True, width=300):
        new_chat = gr.Button("➕ New chat", size="sm", elem_classes="new-chat-button")
        conversations = gr.Radio(
            choices=[], label="Past conversations", elem_classes="conversation-list"
        )
        panel = gr.Markdown("", elem_classes="side-panel")
        with gr.Row():
            export_md = gr.Button("⬇️ Markdown", size="sm", elem_classes="export-md")
            export_json = gr.Button("⬇️ JSON", size="sm", elem_classes="export-json")
        export_file = gr.File(label="Export", interactive=False, elem_classes="export-file")
    return new_chat, conversations, panel, export_md, export_json, export_file


def build_layout(
    title: str,
    file_types: list[str],
    examples: list[dict[str, Any]] | None = None,
    state_key: str = DEFAULT_STATE_KEY,
) -> Layout:
    """Create the Blocks and its components.

    Args:
        title: Page and header title.
        file_types: Extensions the file picker offers (checked again on upload).
        examples: Example prompts (`{"text", "files"}`); None for the defaults.
        state_key: Key that obfuscates the browser's stored conversations.
    """
    import gradio as gr

    with gr.Blocks(title=title, fill_height=True) as demo:
        store = gr.BrowserState(
            {"current": None, "conversations": []}, storage_key=STORAGE_KEY, secret=state_key
        )
        conversation_id = gr.State(None)
        pending = gr.State(None)
        new_chat, conversations, panel, export_md, export_json, export_file = _sidebar()
        gr.Markdown(
            f"## {title}\nAsk anything: the agent thinks, writes Python, runs it and answers."
        )
        chatbot = gr.Chatbot(
            label="Agent", elem_id="chat", scale=1, height="70vh", buttons=["copy", "copy_all"],
            placeholder="Send a message, or pick an example below.", autoscroll=True,
        )  # fmt: skip
        textbox = gr.MultimodalTextbox(
            placeholder="Ask the agent… (attach PDF, DOCX, text or images with 📎)",
            file_types=file_types, file_count="multiple", show_label=False, autofocus=True,
            max_plain_text_length=200_000, submit_btn=True, elem_id="message",
        )  # fmt: skip
        with gr.Row():
            stop = gr.Button("⏹ Stop", variant="stop", size="sm", elem_classes="stop-button")
            retry = gr.Button("🔄 Retry", size="sm", elem_classes="retry-button")
            clear = gr.Button("🗑️ Clear", size="sm", elem_classes="clear-button")
        gr.Examples(examples=examples if examples is not None else default_examples(),
                    inputs=[textbox], cache_examples=False, label="Examples")  # fmt: skip
    return Layout(
        demo=demo, chatbot=chatbot, textbox=textbox, stop=stop, retry=retry, clear=clear,
        new_chat=new_chat, conversations=conversations, panel=panel, export_md=export_md,
        export_json=export_json, export_file=export_file, store=store,
        conversation_id=conversation_id, pending=pending,
    )  # fmt: skip
