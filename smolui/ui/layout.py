"""The page: a Blocks layout with the chat, the message box, controls and a side panel.

Only components are created here; `smolui.ui.wiring` attaches the events.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ASSETS = Path(__file__).parent.parent / "assets"
SAMPLE_DOCUMENT = ASSETS / "greenhouse_report.pdf"
SAMPLE_DATA = ASSETS / "monthly_sales.csv"
# The browser keeps only its owner key and the current conversation id (the conversations
# themselves live on the server); a new key, so old browser-kept transcripts are not read.
STORAGE_KEY = "smolui-owner"
# The page ships this to the browser, so it is an obfuscation key, not a secret: a fixed
# value keeps stored conversations readable across server restarts.
DEFAULT_STATE_KEY = "smolui-browser-state"


def default_examples() -> list[dict[str, Any]]:
    """Example prompts; two come with a bundled sample file (a report, a sales table)."""
    return [
        {"text": "What is the 20th Fibonacci number? Compute it with code.", "files": []},
        {
            "text": "Summarize the attached report and compute the total harvest and the "
            "harvest per litre of water for each bay.",
            "files": [str(SAMPLE_DOCUMENT)],
        },
        {
            "text": "Plot the monthly totals and tell me the best month.",
            "files": [str(SAMPLE_DATA)],
        },
    ]


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
    search: Any = None
    title: Any = None
    rename: Any = None
    delete: Any = None
    delete_all: Any = None
    model: Any = None
    examples: Any = None


def _manage() -> dict[str, Any]:
    """Search, rename and delete for the conversation list (inside a Blocks context)."""
    import gradio as gr

    search = gr.Textbox(
        placeholder="Search conversations…",
        show_label=False,
        max_lines=1,
        elem_classes="conversation-search",
    )
    with gr.Accordion("Manage conversation", open=False, elem_classes="conversation-manage"):
        title = gr.Textbox(
            placeholder="New title",
            show_label=False,
            max_lines=1,
            elem_classes="conversation-title",
        )
        with gr.Row():
            rename = gr.Button("Rename", size="sm", elem_classes="rename-button")
            delete = gr.Button("Delete", size="sm", variant="stop", elem_classes="delete-button")
        delete_all = gr.Button(
            "Delete all my conversations",
            size="sm",
            variant="stop",
            elem_classes="delete-all-button",
        )
    return {
        "search": search,
        "title": title,
        "rename": rename,
        "delete": delete,
        "delete_all": delete_all,
    }


def model_picker(choices: list[tuple[str, str]]) -> Any:
    """The picker (inside a Blocks context); hidden when there is nothing to choose.

    Args:
        choices: From `model_choices` (empty: no picker is offered).
    """
    import gradio as gr

    from smolui.sessions.model_choice import DEFAULT_CHOICE

    return gr.Dropdown(
        choices=choices or [("default", DEFAULT_CHOICE)],
        value=DEFAULT_CHOICE,
        label="Model for new chats",
        interactive=True,
        visible=len(choices) >= 2,
        elem_classes="model-picker",
    )


def _sidebar(models: list[tuple[str, str]] | None) -> tuple[Any, ...]:
    """New chat, past conversations, the side panel and export (inside a Blocks context)."""
    import gradio as gr

    with gr.Sidebar(label="Conversations", open=True, width=300):
        new_chat = gr.Button("+ New chat", size="sm", elem_classes="new-chat-button")
        picker = model_picker(models or [])
        manage = {**_manage(), "model": picker}
        conversations = gr.Radio(
            choices=[], label="Past conversations", elem_classes="conversation-list"
        )
        panel = gr.Markdown("", elem_classes="side-panel")
        with gr.Row():
            export_md = gr.Button("↓ Markdown", size="sm", elem_classes="export-md")
            export_json = gr.Button("↓ JSON", size="sm", elem_classes="export-json")
        export_file = gr.File(label="Export", interactive=False, elem_classes="export-file")
    return new_chat, conversations, panel, export_md, export_json, export_file, manage


def build_layout(
    title: str,
    file_types: list[str],
    examples: list[dict[str, Any]] | None = None,
    state_key: str = DEFAULT_STATE_KEY,
    sign_in_button: Callable[[], Any] | None = None,
    models: list[tuple[str, str]] | None = None,
    events: Callable[[Layout], None] | None = None,
) -> Layout:
    """Create the Blocks and its components.

    Args:
        title: Page and header title.
        file_types: Extensions the file picker offers (checked again on upload).
        examples: Example prompts (`{"text", "files"}`); None for the defaults.
        state_key: Key that obfuscates the browser's stored conversations.
        sign_in_button: Adds a sign-in button under the header (Sign in with Hugging Face).
        models: The model picker's choices (`smolui.sessions.model_choice.model_choices`); hidden when fewer
            than two.
        events: Wires the layout's events, called inside the Blocks (gradio then builds
            the page's configuration once, when the Blocks closes).
    """
    import gradio as gr

    with gr.Blocks(title=title, fill_height=True) as demo:
        store = gr.BrowserState(
            {"owner": None, "current": None}, storage_key=STORAGE_KEY, secret=state_key
        )
        conversation_id = gr.State(None)
        pending = gr.State(None)
        sidebar = _sidebar(models)
        new_chat, conversations, panel, export_md, export_json, export_file, manage = sidebar
        gr.Markdown(
            f"## {title}\nAsk anything: the agent thinks, writes Python, runs it and answers.",
            elem_classes="smolui-header",
        )
        if sign_in_button is not None:
            sign_in_button()
        chatbot = gr.Chatbot(
            label="Agent",
            show_label=False,
            elem_id="chat",
            scale=1,
            min_height=260,
            height="calc(100dvh - 430px)",
            buttons=["copy", "copy_all"],
            layout="panel",
            editable="user",  # the pencil; `smolui.handlers.message_actions` allows the last message only
            placeholder="Send a message, or pick an example below.",
            autoscroll=True,
        )
        textbox = gr.MultimodalTextbox(
            placeholder="Ask the agent… (attach PDF, DOCX, text, CSV/XLSX or images)",
            file_types=file_types,
            file_count="multiple",
            show_label=False,
            autofocus=True,
            max_plain_text_length=200_000,
            submit_btn=True,
            elem_id="message",
            interactive=False,  # until the page has loaded its conversation (and its owner)
        )
        with gr.Row(elem_classes="smolui-controls"):  # Stop is enabled while a turn runs
            stop = gr.Button(
                "■ Stop", variant="stop", size="sm", interactive=False, elem_classes="stop-button"
            )
            retry = gr.Button("↻ Retry", size="sm", elem_classes="retry-button")
            clear = gr.Button("Clear", size="sm", elem_classes="clear-button")
        # A gallery of examples that only fills the box (`wiring`): `gr.Examples` would
        # re-apply the box's constructor props on a click, `interactive=False` among them,
        # and leave the box disabled for good.
        shown = examples if examples is not None else default_examples()
        gallery = gr.Dataset(
            components=[textbox],
            samples=[[example] for example in shown],
            type="index",
            label="Examples",
            elem_id="examples",
        )
        layout = Layout(
            demo=demo,
            chatbot=chatbot,
            textbox=textbox,
            stop=stop,
            retry=retry,
            clear=clear,
            new_chat=new_chat,
            conversations=conversations,
            panel=panel,
            export_md=export_md,
            export_json=export_json,
            export_file=export_file,
            store=store,
            conversation_id=conversation_id,
            pending=pending,
            examples=gallery,
            **manage,
        )
        if events is not None:
            events(layout)
    return layout
