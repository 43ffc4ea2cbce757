"""The chat's own icons wired to `MessageActions`: retry, edit and undo, and versions.

gradio-shaped adapters (notices become toasts; a turn that starts disables the message box and
enables Stop) and the events that attach them (`wire_actions`, called by `smolui.ui.wiring`).
The "< 2/3 >" switchers of messages with versions are drawn by the page script
(`smolui/assets/branches.js`) from the versions the server lists; a click reaches the
server through a hidden button.
"""

# No `from __future__ import annotations`: gradio reads the `gr.EditData` annotation of the
# edit adapter at runtime to pass the event's data.

import functools
from collections.abc import Callable, Iterator
from typing import Any

from smolui.handlers.chat import ChatHandlers
from smolui.handlers.message_actions import ActionResult, MessageActions
from smolui.render.chat_window import shown_versions
from smolui.render.messages import PassingNotice
from smolui.turns.pending import PendingTurn
from smolui.ui.chat_window import PageWindow
from smolui.ui.endpoints import INTERNAL
from smolui.ui.failures import safe
from smolui.ui.layout import Layout

# Hands the versions of the messages shown to the page script, and its click back.
SHOW_VERSIONS_JS = "(versions) => { if (window.smoluiVersions) window.smoluiVersions(versions); }"
REQUEST_JS = (
    "(chat, earlier, id, request) => [chat, earlier, id, window.smoluiVersionRequest || null]"
)


def answering_panel(chat: ChatHandlers) -> Callable[[Any, Any], Any]:
    """The side panel once a retry or an edit has started a turn (unchanged when none did),
    as a sent message shows it. It runs as a step of its own after the action: the panel
    names the sandbox's isolation, which may start its worker, and the chat must not wait.

    Args:
        chat: The page's turn handlers.
    """
    import gradio as gr

    def panel(conversation_id: Any, pending: PendingTurn | None) -> Any:
        return chat.side_panel(conversation_id, pending) if pending is not None else gr.skip()

    return panel


def action_adapters(chat: ChatHandlers, window: PageWindow) -> dict[str, Callable]:
    """The actions in the shape gradio calls them; notices become toasts. Each takes the
    page's window and the messages held back before it (`window.inputs`), acts on the whole
    chat, and returns a new cut (`window.outputs`) first.

    Returned: "undo" (-> the cut, the message box holding the undone text), "retry" and
    "edit" (-> the cut, pending, message box, Stop button: a turn that starts disables the
    box and enables Stop, as a sent message does).

    Args:
        chat: The page's turn handlers.
        window: Cuts the chat the page is sent.
    """
    import gradio as gr

    from smolui.ui.controls import stop_button

    actions = MessageActions(chat)

    def shown(result: ActionResult, keep: int | None = None) -> tuple:
        if result.notice:
            gr.Info(result.notice)
        return window.cut(result.chat, keep)

    def starts(result: ActionResult, keep: int | None = None) -> tuple:
        running = result.pending is not None
        box = gr.MultimodalTextbox(interactive=False) if running else gr.MultimodalTextbox()
        return (*shown(result, keep), result.pending, box, stop_button(running))

    def undo(shown_now: list, earlier: list, conversation_id: Any) -> tuple:
        result = actions.undo(window.full(shown_now, earlier), conversation_id)
        # The undone text goes back into the box to be changed and sent again, as gradio's
        # own undo does (it replaces what the box held).
        given = result.given_back
        box = gr.skip() if given is None else gr.MultimodalTextbox(value={"text": given})
        return (*shown(result), box)

    def retry(shown_now: list, earlier: list, conversation_id: Any) -> tuple:
        return starts(actions.retry(window.full(shown_now, earlier), conversation_id))

    def edit(shown_now: list, earlier: list, conversation_id: Any, data: gr.EditData) -> tuple:
        at = data.index if isinstance(data.index, int) else data.index[0]
        index = window.index(earlier, at)  # the page counts from its window's first message
        history = window.full(shown_now, earlier)
        result = actions.edit(history, conversation_id, index, data.value, data.previous_value)
        # Refused, the chat is as it was: the window stays where the person was reading.
        return starts(result, keep=index if result.pending is None else None)

    return {"undo": undo, "retry": retry, "edit": edit}


def retried_turn(run: Callable, inputs: list, ui: Layout) -> tuple:
    """(handler, inputs, outputs) of the turn a retry or an edit starts: each update also
    keeps Stop enabled while it runs. The page that pressed Stop has its turn's end handler
    (which disables Stop) in flight, and it may land after the retry's own update. A turn
    refused before it ran ends with a `PassingNotice`: it becomes a toast, not a message.

    Args:
        run: The queued turn handler (`pending, history, conversation_id, ...` -> updates of
            `(chat, conversation_id)`).
        inputs: Its inputs, the pending request first.
        ui: The page's components.
    """
    from smolui.ui.controls import stop_button

    @functools.wraps(run)  # gradio reads the wrapped signature (request, profile)
    def turn(*args: Any, **kwargs: Any) -> Iterator[tuple]:
        import gradio as gr

        running = bool(args) and args[0] is not None  # the pending turn comes first
        for chat, conversation_id in run(*args, **kwargs):
            # Refused before it ran: the chat is as it was, the refusal a toast.
            if isinstance(chat, list) and chat and isinstance(chat[-1], PassingNotice):
                gr.Warning(chat[-1].text)
                chat = chat[:-1]
            yield chat, conversation_id, stop_button(running)

    return turn, inputs, [ui.chatbot, ui.conversation_id, ui.stop]


def wire_actions(
    layout: Layout,
    chat: ChatHandlers,
    run: tuple,
    after: tuple,
    turn: dict[str, Any],
    window: PageWindow,
) -> None:
    """Attach the chat's own icons (call inside `with layout.demo:`): retry, edit and undo
    of the last message, the trash, which clears like the Clear button, and the "Earlier
    messages" button above the chat.

    Args:
        layout: The page's components.
        chat: The page's turn handlers.
        run: (handler, inputs, outputs) of the queued turn that follows a retry or an edit.
        after: (handler, inputs, outputs) that refreshes the page once a turn ends.
        turn: The queued turn's event options (concurrency limit and id).
        window: Cuts the chat the page is sent.
    """
    ui = layout
    fn = {name: safe(handler) for name, handler in action_adapters(chat, window).items()}
    acting = [*window.inputs, ui.conversation_id]
    started = [*window.outputs, ui.pending, ui.textbox, ui.stop]
    # Queued (without a limit) so their notices can reach the page.
    options = dict(concurrency_limit=None, show_progress="hidden")
    panel = (safe(answering_panel(chat)), [ui.conversation_id, ui.pending], [ui.panel])
    retried = retried_turn(run[0], run[1], ui)
    refresh = wire_versions(ui, chat, options, window, after)
    for event, handler in ((ui.chatbot.retry, fn["retry"]), (ui.chatbot.edit, fn["edit"])):
        acted = event(handler, acting, started, **options, api_visibility=INTERNAL)
        # An edit or a retry starts a branch: its switcher shows once its turn has saved
        # the new version's first message.
        ran = acted.then(*panel, queue=False, api_visibility=INTERNAL).then(
            *retried, **turn, api_visibility=INTERNAL
        )
        refresh(ran.then(*after, queue=False, api_visibility=INTERNAL))
    refresh(
        ui.chatbot.undo(
            fn["undo"], acting, [*window.outputs, ui.textbox], **options, api_visibility=INTERNAL
        ).then(*after, queue=False, api_visibility=INTERNAL)
    )
    # The page's script sends trash clicks to Clear (which asks first); this only runs
    # where that script did not, so the server forgets what the page no longer shows.
    clear = safe(lambda conversation_id: window.cut(chat.clear(conversation_id)))
    ui.chatbot.clear(
        clear, [ui.conversation_id], window.outputs, queue=False, api_visibility=INTERNAL
    ).then(*after, queue=False, api_visibility=INTERNAL)
    window.wire(refresh)


def unless_running(chat: ChatHandlers, handler: Callable, outputs: int) -> Callable:
    """`handler` (whose first input is the conversation id), or nothing changed while that
    conversation's turn runs: the page refresh after a turn would enable the box and disable
    Stop, and a switch is refused (but still clicked) while a turn runs.

    Args:
        chat: The page's turn handlers.
        handler: The page refresh after a turn (`after_turn`).
        outputs: How many outputs it updates.
    """
    import gradio as gr

    @functools.wraps(handler)  # gradio reads the wrapped signature (request, profile)
    def refresh(*args: Any, **kwargs: Any) -> Any:
        session = chat.registry.get(args[0] if args else None)
        if session is not None and session.busy:
            return tuple(gr.skip() for _ in range(outputs))
        return handler(*args, **kwargs)

    return refresh


def wire_versions(
    ui: Layout,
    chat: ChatHandlers,
    options: dict[str, Any],
    window: PageWindow,
    after: tuple | None = None,
) -> Callable[[Any], Any]:
    """The versions of the messages shown, kept up to date for the page script, and the
    switch it asks for (call inside `with layout.demo:`). Returns what chains the refresh
    after another event (`refresh(event)`).

    The page places a switcher by the person's turn it belongs to, counted in its window;
    the position a click sends back is the conversation's (`shown_versions`).

    Args:
        ui: The page's components.
        chat: The page's turn handlers.
        options: The actions' event options.
        window: Cuts the chat the page is sent.
        after: (handler, inputs, outputs) that refreshes the page once a turn ends, run
            after a switch too (the conversation's title may follow the branch shown).
    """
    import gradio as gr

    actions = MessageActions(chat)
    versions = gr.JSON(None, visible=False)
    request = gr.JSON(None, visible=False)
    # Pressed by the page script (kept out of sight and out of the Tab order by it): to
    # switch, and to ask for the versions when other messages are shown (a reload, another
    # conversation, a turn's new messages).
    switch_button = gr.Button("Switch version", elem_classes="smolui-switch-version")
    list_button = gr.Button("List versions", elem_classes="smolui-list-versions")

    def listed(earlier: Any, conversation_id: Any) -> list[dict[str, Any]]:
        # The held-back messages alone say how many turns the window hides (it opens on a
        # turn's first message); the window itself is not sent, so this event stays small.
        found = actions.versions(conversation_id)
        if not found or not earlier:
            return found
        return shown_versions(found, list(earlier), len(earlier))

    def switch(shown_now: list, earlier: list, conversation_id: Any, asked: Any) -> tuple:
        asked = asked if isinstance(asked, dict) else {}
        position = asked.get("position")
        history = window.full(shown_now, earlier)
        result = actions.switch(history, conversation_id, position, asked.get("step"))
        if result.notice:
            gr.Info(result.notice)
        # The switched message stays in view, however far back the person had scrolled.
        return window.cut(result.chat, position if isinstance(position, int) else None)

    quiet = dict(queue=False, show_progress="hidden")

    listing = [ui.earlier, ui.conversation_id]

    def refresh(event: Any) -> Any:
        # A hidden component has no change event in the page: the script is handed the
        # versions by a step of its own.
        return event.then(safe(listed), listing, [versions], **quiet, api_visibility=INTERNAL).then(
            None, [versions], None, js=SHOW_VERSIONS_JS, **quiet, api_visibility=INTERNAL
        )

    switched = switch_button.click(
        safe(switch),
        [*window.inputs, ui.conversation_id, request],
        window.outputs,
        js=REQUEST_JS,
        **options,
        api_visibility=INTERNAL,
    )
    if after is None:
        refresh(switched)
    else:
        refresh(
            switched.then(
                unless_running(chat, after[0], len(after[2])),
                *after[1:],
                queue=False,
                api_visibility=INTERNAL,
            )
        )
    list_button.click(safe(listed), listing, [versions], **quiet, api_visibility=INTERNAL).then(
        None, [versions], None, js=SHOW_VERSIONS_JS, **quiet, api_visibility=INTERNAL
    )
    return refresh
