"""The page: a Blocks layout with the chat, the message box, controls and a side panel.

Only components are created here; `smolui.ui.wiring` attaches the events.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smolui.ui.endpoints import INTERNAL

ASSETS = Path(__file__).parent.parent / "assets"
SAMPLE_DOCUMENT = ASSETS / "greenhouse_report.pdf"
SAMPLE_DATA = ASSETS / "monthly_sales.csv"
# The browser keeps only its owner key and the current conversation id (the conversations
# themselves live on the server); a new key, so old browser-kept transcripts are not read.
STORAGE_KEY = "smolui-owner"
# The page ships this to the browser, so it is an obfuscation key, not a secret: a fixed
# value keeps stored conversations readable across server restarts.
DEFAULT_STATE_KEY = "smolui-browser-state"
# px: the title and the model's line keep this much beside who is signed in, else they wrap.
HEADER_MIN_WIDTH = 320


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
    store: Any
    conversation_id: Any
    pending: Any
    # The chat the echo of a sent message showed, kept on the server (a `gr.State`) for the
    # turn that follows: the page never sends its whole chat back with the turn.
    sent_chat: Any = None
    # The messages before the chat's window, kept on the server (a `gr.State`), and the
    # button above the chat that brings them back (`smolui.ui.chat_window`).
    earlier: Any = None
    earlier_button: Any = None
    search: Any = None
    title: Any = None
    rename: Any = None
    delete: Any = None
    delete_all: Any = None
    model: Any = None
    examples: Any = None
    # The server's checks of the files in the message box, for the page's chips (hidden),
    # and the button the page script presses when the box's files change (hidden).
    attachment_checks: Any = None
    check_files: Any = None
    # The action a turn waits on and the per-conversation switch (`smolui.ui.approvals`).
    approval: Any = None
    # The share controls (`smolui.ui.share`); None when the operator does not allow sharing.
    share: Any = None


def _manage() -> dict[str, Any]:
    """Search, rename and delete for the conversation list (inside a Blocks context)."""
    import gradio as gr

    search = gr.Textbox(
        label="Search conversations",  # the name a screen reader announces (label hidden)
        placeholder="Search conversations…",
        show_label=False,
        max_lines=1,
        elem_classes="conversation-search",
    )
    with gr.Accordion("Manage conversation", open=False, elem_classes="conversation-manage"):
        title = gr.Textbox(
            label="Conversation title",  # the name a screen reader announces (label hidden)
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


def model_picker(
    choices: list[tuple[str, str]] | Callable[[], list[tuple[str, str]]],
) -> Any:
    """The picker (inside a Blocks context); hidden when there is nothing to choose.

    Args:
        choices: From `model_choices` (empty: no picker is offered), or a function giving
            them now: asked again on each page load, so that models found on local servers
            after the page was built are offered (`AgentFactory.model_choices`).
    """
    import gradio as gr

    from smolui.sessions.model_choice import DEFAULT_CHOICE

    def shown(now: list[tuple[str, str]]) -> dict[str, Any]:
        return {"choices": now or [("default", DEFAULT_CHOICE)], "visible": len(now) >= 2}

    picker = gr.Dropdown(
        value=DEFAULT_CHOICE,
        label="Model for new chats",
        interactive=True,
        elem_classes="model-picker",
        **shown(choices() if callable(choices) else choices),
    )
    if callable(choices):
        # The picker's own choices only (the page's load event sets its value): with no
        # trigger and no input, `gr.on` runs when a page loads.
        gr.on(
            None,
            lambda: gr.Dropdown(**shown(choices())),
            None,
            picker,
            queue=False,
            show_progress="hidden",
            api_visibility="private",
        )
    return picker


def _sidebar(
    models: list[tuple[str, str]] | None, share_panel: Callable[[], Any] | None = None
) -> tuple[Any, ...]:
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
        manage["share"] = share_panel() if share_panel is not None else None
    return new_chat, conversations, panel, export_md, export_json, manage


def header_text(title: str, model_line: Callable[[], str] | None = None) -> str:
    """The page's heading (its one `h1`), what the app does, and what its model can do.

    Args:
        title: The page title.
        model_line: Says what the model can do (`smolui.render.panel.capability_line`).
    """
    text = f"# {title}\nAsk anything: the agent thinks, writes Python, runs it and answers."
    return f"{text}\n\n**{model_line()}**" if model_line is not None else text


def _header(
    title: str,
    model_line: Callable[[str | None], str] | None,
    panel: Any,
    conversation_id: Any,
) -> Any:
    """The header (inside a Blocks context), whose model line follows the conversation shown.

    The side panel is redrawn by every event that opens a conversation or changes its model
    (the page's load first), so the header follows the panel's changes rather than each of
    those events. Its first value is not a function: gradio would run it on load in an event
    of its own, which may land after the panel's and bring back the default's line.
    """
    import gradio as gr

    if model_line is None:
        return gr.Markdown(header_text(title), elem_classes="smolui-header")

    def shown(conversation: Any) -> str:
        return header_text(title, lambda: model_line(conversation or None))

    header = gr.Markdown(shown(None), elem_classes="smolui-header")
    panel.change(
        shown,
        [conversation_id],
        [header],
        queue=False,
        show_progress="hidden",
        api_visibility=INTERNAL,
    )
    return header


def build_layout(
    title: str,
    file_types: list[str],
    examples: list[dict[str, Any]] | None = None,
    state_key: str = DEFAULT_STATE_KEY,
    sign_in: Any = None,
    models: list[tuple[str, str]] | None = None,
    events: Callable[[Layout], None] | None = None,
    model_line: Callable[[str | None], str] | None = None,
    share_panel: Callable[[], Any] | None = None,
) -> Layout:
    """Create the Blocks and its components.

    Args:
        title: Page and header title.
        file_types: Extensions the file picker offers (checked again on upload).
        examples: Example prompts (`{"text", "files"}`); None for the defaults.
        state_key: Key that obfuscates the browser's stored conversations.
        sign_in: The app's `SignIn`: beside the header, who is signed in and the way to sign
            out, or the "Sign in with Hugging Face" button (`smolui.ui.account`); None or
            no sign-in: nothing.
        models: The model picker's choices (`smolui.sessions.model_choice.model_choices`); hidden when fewer
            than two.
        events: Wires the layout's events, called inside the Blocks (gradio then builds
            the page's configuration once, when the Blocks closes).
        model_line: Says what the model of a conversation (given its id; None: the app's
            default) can do, under the title; asked when the app is built, then whenever
            the side panel changes (on each page load too: the model may still be loading
            when the app is built).
        share_panel: Adds the share controls to the sidebar (`smolui.ui.share.share_panel`).
    """
    import gradio as gr

    from smolui.ui.approvals import approval_panel, approval_switch

    with gr.Blocks(title=title, fill_height=True) as demo:
        store = gr.BrowserState(
            {"owner": None, "current": None}, storage_key=STORAGE_KEY, secret=state_key
        )
        conversation_id = gr.State(None)
        pending = gr.State(None)
        sent_chat = gr.State(None)
        earlier = gr.State([])
        sidebar = _sidebar(models, share_panel)
        new_chat, conversations, panel, export_md, export_json, manage = sidebar
        if sign_in is None or sign_in.mode == "none":
            _header(title, model_line, panel, conversation_id)
        else:  # who is signed in and the way out, beside the title (`smolui.ui.account`)
            from smolui.ui.account import account_bar

            with gr.Row(elem_classes="smolui-top"):  # a phone puts the name under the title
                with gr.Column(scale=1, min_width=HEADER_MIN_WIDTH):
                    _header(title, model_line, panel, conversation_id)
                account_bar(sign_in)
        # Shown while a long chat holds earlier messages back (`smolui.ui.chat_window`).
        earlier_button = gr.Button(
            "↑ Earlier messages", size="sm", visible=False, elem_classes="smolui-earlier"
        )
        chatbot = gr.Chatbot(
            label="Agent",
            show_label=False,
            elem_id="chat",
            scale=1,
            min_height=260,
            height="calc(100dvh - 446px)",  # the header, box, controls and examples below
            buttons=["copy", "copy_all"],
            layout="panel",
            editable="user",  # the pencil; `smolui.handlers.message_actions` allows the last message only
            placeholder="Send a message, or pick an example below.",
            autoscroll=True,
        )
        approval = approval_panel()
        textbox = gr.MultimodalTextbox(
            placeholder="Ask the agent… (attach PDF, DOCX, text, CSV/XLSX or images)",
            file_types=file_types,
            file_count="multiple",
            label="Message to the agent",
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
            switch = approval_switch()
        # A gallery of examples, each sent on a click as a typed message is
        # (`smolui.ui.examples`): `gr.Examples` would re-apply the box's constructor props
        # on a click, `interactive=False` among them, and leave the box disabled for good.
        shown = examples if examples is not None else default_examples()
        gallery = gr.Dataset(
            components=[textbox],
            samples=[[example] for example in shown],
            type="index",
            label="Examples",
            elem_id="examples",
        )
        checks = gr.JSON(None, visible=False)
        # The message box has no upload event: the page script (assets/chips.js) presses
        # this button, kept out of sight and out of the Tab order by the styles.
        check_files = gr.Button("Check attached files", elem_classes="smolui-check-files")
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
            store=store,
            conversation_id=conversation_id,
            pending=pending,
            sent_chat=sent_chat,
            earlier=earlier,
            earlier_button=earlier_button,
            examples=gallery,
            attachment_checks=checks,
            check_files=check_files,
            approval=approval,
            **manage,
        )
        approval.switch = switch
        if events is not None:
            events(layout)
    return layout
