"""The turn's events in the shape gradio calls them: the message's echo, its turn streaming
to the page that shows it, the list naming a new conversation, the page's refresh once the
turn ends, retry and clear. `smolui.ui.wiring` attaches these to the page.
"""

# No `from __future__ import annotations` here: gradio reads the `gr.Request` annotations
# of the adapters below at runtime to inject the request.

from collections.abc import Callable
from typing import Any

from smolui.auth import with_identity
from smolui.handlers.chat import ChatHandlers
from smolui.handlers.conversations import ConversationHandlers
from smolui.turns.pending import PendingTurn
from smolui.ui.chat_window import PageWindow
from smolui.ui.controls import retry_adapter, stop_button
from smolui.ui.conversation_events import page_of
from smolui.ui.page_views import PageViews


def _second(item: tuple) -> Any:
    """The conversation id of a turn's update (chat, id)."""
    return item[1]


def _only_asked(chat: Any) -> bool:
    """True when a chat holds only the person's messages: no answer, no notice yet."""
    return all(
        isinstance(message, dict) and message.get("role") == "user" for message in chat or []
    )


def turn_adapters(
    chat: ChatHandlers,
    conversations: ConversationHandlers,
    identify: Callable,
    window: PageWindow,
    views: PageViews,
) -> dict[str, Callable]:
    """The turn's handlers as gradio calls them: echo, run, the list naming a new chat,
    the page's refresh after a turn, retry and clear (none wrapped: `smolui.ui.wiring`
    does that).

    Args:
        chat: Turn and control handlers.
        conversations: The list's refresh after a turn.
        identify: Who sent a request: `identify(request, profile)`.
        window: Cuts the chats sent to the page.
        views: Which conversation each page shows.
    """
    import gradio as gr

    # `history` (the chat the page shows) keeps its name: it is the parameter gradio's client
    # names for `/echo` (`client.predict(message=..., history=[...], api_name="/echo")`).
    def echo(message: Any, history: list, earlier: list, conversation_id: Any) -> tuple:
        shown, pending = chat.echo(message, window.full(history, earlier), conversation_id)
        busy = pending is not None
        # A sent message brings the page back to the chat's end; nothing sent changes nothing.
        cut = window.cut(shown) if busy else (gr.skip(), gr.skip(), gr.skip())
        return (
            *cut,
            pending,
            cut[0] if busy else None,  # for the turn, on the server (`Layout.sent_chat`)
            gr.MultimodalTextbox(value=None, interactive=False) if busy else gr.MultimodalTextbox(),
            stop_button(busy),
            chat.side_panel(conversation_id, pending) if busy else gr.skip(),
        )

    def run(
        pending: PendingTurn | None,
        shown_now: list,
        earlier: list,
        conversation_id: Any,
        request: gr.Request,
        profile: gr.OAuthProfile | None,
    ):
        if pending is None:  # nothing was sent (an empty box): the page keeps what it shows
            yield gr.skip(), gr.skip()
            return
        # The turn runs on the whole chat; the page is sent only its window of each update,
        # while it shows this conversation.
        who, page = identify(request, profile), page_of(request)
        history = window.full(shown_now, earlier)
        turn = chat.run_turn(pending, history, conversation_id, page, who)
        for shown, shown_id in views.while_shown(page, conversation_id, turn, _second):
            yield window.tail(shown, earlier), shown_id

    def send_run(
        pending: PendingTurn | None,
        shown_now: list,
        earlier: list,
        conversation_id: Any,
        request: gr.Request,
        profile: gr.OAuthProfile | None,
    ):
        # A new conversation's first turn names it once it has begun (kept as "running"
        # before the turn's first update), for the list (`listed`), not only at the turn's
        # end. A chat with an answer in it was listed already: no look at the store for it.
        first = pending is not None and not earlier and _only_asked(shown_now)
        for shown, shown_id in run(pending, shown_now, earlier, conversation_id, request, profile):
            yield shown, shown_id, shown_id if first else gr.skip()
            first = False

    def listed(
        conversation_id: Any, store: Any, request: gr.Request, profile: gr.OAuthProfile | None
    ) -> Any:
        if not conversation_id or not views.shows(page_of(request), conversation_id):
            return gr.skip()  # the page opened another conversation meanwhile
        store = with_identity(store, identify(request, profile))
        _, choices = conversations.refresh(conversation_id, store)
        # Its choices only: the list's value is already this conversation (a new chat sets
        # it), and a pick the person is making at this moment must not be set back.
        return gr.Radio(choices=choices)

    def after_turn(
        conversation_id: Any, store: Any, request: gr.Request, profile: gr.OAuthProfile | None
    ) -> tuple:
        if not views.shows(page_of(request), conversation_id):
            # The page opened another conversation mid-turn (which set these itself): this
            # comes late, with the id of the one it left.
            return gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.skip()
        store = with_identity(store, identify(request, profile))
        store, choices = conversations.refresh(conversation_id, store)
        # A retry queued behind a stopped turn runs next: the controls stay as for a run.
        session = chat.registry.get(conversation_id)
        running = session is not None and session.retry_after_stop
        waiting = PendingTurn.retry_last(after_stop=True) if running else None
        # With the page's owner the panel is read from the store when a version switch let
        # the conversation's agent go.
        return (
            store,
            gr.Radio(choices=choices, value=conversation_id),
            chat.side_panel(conversation_id, waiting, store["owner"]),
            gr.MultimodalTextbox(interactive=not running),
            stop_button(running),
        )

    retried = retry_adapter(chat)

    def retry(shown_now: list, earlier: list, conversation_id: Any) -> tuple:
        shown, pending, stop = retried(window.full(shown_now, earlier), conversation_id)
        # A retry that starts holds the box as a sent message does: nothing else is sent
        # until its turn ends (`after_turn` enables the box again).
        running = pending is not None
        box = gr.MultimodalTextbox(interactive=False) if running else gr.MultimodalTextbox()
        return (*window.cut(shown), pending, box, stop)

    def clear(conversation_id: Any) -> tuple:
        return window.cut(chat.clear(conversation_id))

    return {
        "echo": echo,
        "run": run,
        "send_run": send_run,
        "listed": listed,
        "after_turn": after_turn,
        "retry": retry,
        "clear": clear,
    }
