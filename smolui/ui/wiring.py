"""Event wiring: which handler runs on which event, queued or not, with which limits.

The user's message is echoed at once (`queue=False`), then the turn runs in the queue under
a shared concurrency limit; Stop runs outside the queue so it is never stuck behind turns.
A page that opens another conversation mid-turn stops showing that turn, which goes on on the
server (`smolui.ui.page_views`).
"""

# No `from __future__ import annotations` here: gradio reads the `gr.Request` annotations
# of the adapters below at runtime to inject the request.

from collections.abc import Callable
from typing import Any

from smolui.auth import Identity, SignIn
from smolui.handlers.chat import ChatHandlers
from smolui.handlers.conversations import ConversationHandlers
from smolui.render.chat_window import CHAT_WINDOW
from smolui.ui.approvals import wire_approvals
from smolui.ui.box_hold import opening
from smolui.ui.chat_window import PageWindow
from smolui.ui.controls import stop_adapter
from smolui.ui.conversation_events import conversation_adapters
from smolui.ui.conversation_events import no_match as no_match
from smolui.ui.endpoints import INTERNAL, PUBLIC
from smolui.ui.examples import wire_examples
from smolui.ui.failures import safe
from smolui.ui.file_events import wire_attachment_checks, wire_export
from smolui.ui.layout import Layout
from smolui.ui.message_actions import answering_panel, retried_turn, wire_actions
from smolui.ui.page_views import PageViews
from smolui.ui.turn_copy import wire_turn_copy
from smolui.ui.turn_events import turn_adapters


def _identifier(sign_in: SignIn | None) -> Callable[[Any, Any], Identity]:
    """Who sent a request: `identify(request, profile)` (anonymous without sign-in)."""

    def identify(request: Any, profile: Any) -> Identity:
        if sign_in is None:
            return Identity()
        return sign_in.identify(request, profile)

    return identify


def adapters(
    chat: ChatHandlers,
    conversations: ConversationHandlers,
    sign_in: SignIn | None = None,
    window: PageWindow | None = None,
    views: PageViews | None = None,
) -> dict[str, Callable]:
    """The handlers in the shape gradio calls them: component values in, updates out.

    Every handler but the streaming turn and the unload hook is wrapped by `safe`.

    Args:
        chat: Turn and control handlers.
        conversations: Load, new chat, switch, save and unload handlers.
        sign_in: Who a request comes from (None: everyone is anonymous).
        window: Cuts the chats sent to the page (None: a page without components, whose
            chat is never cut).
        views: Which conversation each page shows (None: a new record).
    """
    identify = _identifier(sign_in)
    window = window or PageWindow(None, None, None, size=0)
    views = views or PageViews()  # which conversation each page shows
    handlers = {
        **turn_adapters(chat, conversations, identify, window, views),
        **conversation_adapters(chat, conversations, identify, window, views),
        "panel": answering_panel(chat),
        "stop": stop_adapter(chat),
    }
    unwrapped = ("run", "send_run", "unload", "follow")
    return {name: fn if name in unwrapped else safe(fn) for name, fn in handlers.items()}


def wire(
    layout: Layout,
    chat: ChatHandlers,
    conversations: ConversationHandlers,
    concurrency: int,
    model_label: Callable[[], str],
    sign_in: SignIn | None = None,
    waiting: int = 0,
    usage: Callable[[Identity], list] | None = None,
    export_link: Callable[[str, str, str], str] | None = None,
    chat_window: int = CHAT_WINDOW,
) -> None:
    """Attach every event of the page (call inside `with layout.demo:`).

    Args:
        layout: The page's components.
        chat: Turn and control handlers.
        conversations: Load, new chat, switch, save and unload handlers.
        concurrency: How many turns may run at once across all visitors.
        model_label: The model's display name (for exports).
        sign_in: Who a request comes from (None: everyone is anonymous).
        waiting: Turns that may wait in the app's own turn queue: gradio lets them into
            the handler, which shows each its place and starts it when a slot frees.
        usage: Everyone's usage for an admin (`TurnAdmission.usage_report`), served as the
            API endpoint `/usage` (no page element); None: no such endpoint.
        export_link: Makes the link of a stored conversation's export (owner, id, format);
            None: the export buttons do nothing.
        chat_window: Messages the page's chat holds; earlier ones load on demand (0: all).
    """
    import gradio as gr

    ui = layout
    window = PageWindow(ui.chatbot, ui.earlier, ui.earlier_button, chat_window)
    views = PageViews()  # which conversation each page shows (an approval's resumed turn too)
    fn = adapters(chat, conversations, sign_in, window, views)
    run_inputs = [ui.pending, *window.inputs, ui.conversation_id]
    limit = concurrency + waiting
    turn = dict(concurrency_limit=limit, concurrency_id="turn", show_progress="hidden")
    after = (
        fn["after_turn"],
        [ui.conversation_id, ui.store],
        [ui.store, ui.conversations, ui.panel, ui.textbox, ui.stop],
    )
    opened = [ui.conversation_id, *window.outputs, ui.store, ui.conversations, ui.panel, ui.model]
    # Opening another conversation sets the box and Stop for it (a turn left mid-way ends
    # nothing on this page: its end no longer reaches it).
    switched = [*opened, ui.textbox, ui.stop]

    # The sent message's turn starts from the chat its echo showed, kept on the server: the
    # page sends its window once a message (to the echo), not again with the turn.
    sent_inputs = [ui.pending, ui.sent_chat, ui.earlier, ui.conversation_id]
    echoed = [*window.outputs, ui.pending, ui.sent_chat, ui.textbox, ui.stop, ui.panel]
    at_once = dict(queue=False, show_progress="hidden")  # no error badge over the chat either
    # The id of a new conversation whose first turn has begun (a State: the API's `/run`
    # still answers with the chat alone); the list names it then.
    begun = gr.State(None)
    sent_outputs = [ui.chatbot, ui.conversation_id, begun]
    begun.change(
        fn["listed"], [begun, ui.store], [ui.conversations], **at_once, api_visibility=INTERNAL
    )

    def send(trigger: Callable, echo: Callable, message: Any, api: str = INTERNAL) -> None:
        # The one way a message goes out (typed, or an example clicked): shown at once, its
        # turn in the queue, then the list and the controls. An echo that fails (an example
        # clicked while a turn runs) starts no turn and leaves the controls as they are.
        # The typed message's is the API's `/echo` and `/run` (`smolui.ui.endpoints`).
        shown = (echo, [message, *window.inputs, ui.conversation_id], echoed)
        (
            trigger(*shown, **at_once, api_visibility=api)
            .success(
                fn["send_run"],
                sent_inputs,
                sent_outputs,
                api_name="run",
                **turn,
                api_visibility=api,
            )
            .then(*after, queue=False, api_visibility=INTERNAL)
        )

    send(ui.textbox.submit, fn["echo"], ui.textbox, PUBLIC)
    # Queued (without a limit) so its "nothing to retry" notice can reach the page.
    (
        ui.retry.click(
            fn["retry"],
            [*window.inputs, ui.conversation_id],
            [*window.outputs, ui.pending, ui.textbox, ui.stop],
            concurrency_limit=None,
            show_progress="hidden",
            api_visibility=INTERNAL,
        )
        .then(
            fn["panel"],
            [ui.conversation_id, ui.pending],
            [ui.panel],
            queue=False,
            api_visibility=INTERNAL,
        )
        .then(*retried_turn(fn["run"], run_inputs, ui), **turn, api_visibility=INTERNAL)
        .then(*after, queue=False, api_visibility=INTERNAL)
    )
    ui.stop.click(fn["stop"], [ui.conversation_id], None, queue=False, api_visibility=INTERNAL)
    # Clear asks first in the page's script (smolui/assets/smolui.js), before gradio sees it.
    ui.clear.click(
        fn["clear"], [ui.conversation_id], window.outputs, queue=False, api_visibility=INTERNAL
    ).then(*after, queue=False, api_visibility=INTERNAL)
    run = (fn["run"], run_inputs, [ui.chatbot, ui.conversation_id])
    wire_actions(ui, chat, run, after, turn, window)  # the chat's retry, undo, edit, trash
    opening(
        ui.new_chat.click,
        ui.textbox,
        fn["new_chat"],
        [ui.store, ui.model],
        switched,
        queue=False,
        api_visibility=INTERNAL,
    )
    # Queued (without a limit) so its "keeps its model" notice can reach the page.
    pick = dict(concurrency_limit=None, show_progress="hidden")
    ui.model.input(
        fn["pick_model"],
        [ui.model, ui.conversation_id, ui.store],
        [ui.panel],
        **pick,
        api_visibility=INTERNAL,
    )
    # A page that opens a conversation while its turn runs (reload, second tab) follows the turn.
    follow_outputs = [ui.chatbot, ui.textbox, ui.stop, ui.panel]
    follow = (fn["follow"], [ui.conversation_id, ui.earlier], follow_outputs)
    follow_options = dict(concurrency_limit=None, show_progress="hidden")
    opening(
        ui.conversations.input,
        ui.textbox,
        fn["switch"],
        [ui.conversations, ui.conversation_id, ui.store, ui.search],
        switched,
        queue=False,
        api_visibility=INTERNAL,
    ).then(*follow, **follow_options, api_visibility=INTERNAL)
    _wire_manage(ui, fn, switched)
    wire_approvals(ui.approval, ui.chatbot, ui.conversation_id, chat.config.approvals, safe,
                   ui.panel, chat.side_panel, _identifier(sign_in), follow)  # fmt: skip
    if export_link is not None:
        wire_export(ui, export_link, _identifier(sign_in))
    wire_attachment_checks(ui, chat)
    wire_turn_copy(ui, safe)  # each answer's "Copy turn as Markdown"
    wire_examples(ui, send, fn["echo"], chat.registry.get)
    loaded = ui.demo.load(
        fn["load"], [ui.store], [*opened, ui.textbox], queue=False, api_visibility=INTERNAL
    )
    loaded.then(*follow, **follow_options, api_visibility=INTERNAL)
    ui.demo.unload(fn["unload"])  # no endpoint: gradio runs it on its own
    if usage is not None:
        _wire_usage(usage, _identifier(sign_in))


def _wire_usage(usage: Callable[[Identity], list], identify: Callable) -> None:
    """The admins' usage report as an API-only endpoint (`client.predict(api_name="/usage")`)."""
    import gradio as gr

    def usage_report(request: gr.Request, profile: gr.OAuthProfile | None) -> list[dict]:
        """Everyone's usage this hour and today; admins only."""
        try:
            return usage(identify(request, profile))
        except PermissionError as error:
            raise gr.Error(str(error)) from None

    gr.api(usage_report, api_name="usage", queue=False)


def _wire_manage(ui: Layout, fn: dict[str, Callable], opened: list) -> None:
    """Search, rename, delete and delete-all of the conversation list (`opened`: what
    opening another conversation updates)."""
    listed = [ui.store, ui.conversations]
    ui.search.change(
        fn["search"],
        [ui.search, ui.conversation_id, ui.store],
        listed,
        queue=False,
        api_visibility=INTERNAL,
    )
    ui.rename.click(
        fn["rename"],
        [ui.title, ui.conversation_id, ui.store],
        [*listed, ui.title],
        queue=False,
        api_visibility=INTERNAL,
    )
    for button, name, inputs in (
        (ui.delete, "delete", [ui.conversation_id, ui.store]),
        (ui.delete_all, "delete_all", [ui.store]),
    ):
        opening(
            button.click, ui.textbox, fn[name], inputs, opened, queue=False, api_visibility=INTERNAL
        )
