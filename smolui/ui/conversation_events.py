"""The conversation events in the shape gradio calls them: load, new chat, a pick in the list,
search, rename, delete, the page following a running turn, and the page closing.

Opening another conversation while a turn runs leaves that turn running on the server: the
page stops showing it (`smolui.ui.page_views`) and gets the opened conversation's chat,
message box and Stop as they are for it. `smolui.ui.wiring` attaches these to the page.
"""

# No `from __future__ import annotations` here: gradio reads the `gr.Request` annotations
# of the adapters below at runtime to inject the request.

import functools
from collections.abc import Callable
from typing import Any

from smolui.auth import with_identity
from smolui.handlers.chat import ChatHandlers
from smolui.handlers.conversations import ConversationHandlers
from smolui.sessions.model_choice import DEFAULT_CHOICE
from smolui.ui.chat_window import PageWindow
from smolui.ui.controls import stop_button
from smolui.ui.page_views import PageViews


def no_match(query: str) -> str:
    """What the conversation list says when a search finds nothing.

    Args:
        query: What the visitor searched for.
    """
    return f"No conversation matches \u201c{query.strip()}\u201d."


def page_of(request: Any) -> str | None:
    """The page's session hash (a `gr.Request` is None when an event runs outside a page)."""
    return request.session_hash if request is not None else None


def _runs(chat: ChatHandlers, conversation_id: Any) -> bool:
    """Whether a turn of this conversation runs now, as pages show it (a stopped one is over
    for them, though its agent may still end its step)."""
    session = chat.registry.get(conversation_id)
    live = session.live_turn if session is not None else None
    return session is not None and session.busy and live is not None and not live.done


def _owner(store: Any) -> str | None:
    """The owner in the page's state (as the conversation handlers resolved it), if any."""
    owner = store.get("owner") if isinstance(store, dict) else None
    return owner if isinstance(owner, str) else None


def _controls(running: bool) -> tuple:
    """The message box and Stop for a conversation opened: as for a run while its turn runs
    (the page then follows it), ready otherwise."""
    import gradio as gr

    return gr.MultimodalTextbox(interactive=not running), stop_button(running)


def conversation_adapters(
    chat: ChatHandlers,
    conversations: ConversationHandlers,
    identify: Callable,
    window: PageWindow,
    views: PageViews,
) -> dict[str, Callable]:
    """Load, new chat, model pick, switch, unload, follow, search, rename, delete and
    delete-all, as gradio calls them (none wrapped: `smolui.ui.wiring.adapters` does that).

    Args:
        chat: Turn and control handlers.
        conversations: The conversation handlers.
        identify: Who sent a request: `identify(request, profile)`.
        window: Cuts the chats sent to the page.
        views: Which conversation each page shows.
    """
    import gradio as gr

    def owned(store: Any, request: Any, profile: Any) -> Any:
        # A signed-in user's conversations are theirs by name, whatever the browser holds.
        return with_identity(store, identify(request, profile))

    def opened(result: tuple, page: str | None) -> tuple:
        conversation_id, history, store, choices = result
        views.show(page, conversation_id)
        radio = gr.Radio(choices=choices, value=conversation_id)
        model = conversations.model_of(conversation_id)  # the picker shows the chat's model
        if model and not chat.config.model_available(model):
            model = DEFAULT_CHOICE  # gone since it was stored: its next turn uses the default
        panel = chat.side_panel(conversation_id, owner=_owner(store))
        return conversation_id, *window.cut(history), store, radio, panel, model

    def load(store: Any, request: gr.Request, profile: gr.OAuthProfile | None) -> tuple:
        # The message box opens only now: a message sent before the page knows its owner
        # would start a conversation nobody owns (never saved, never listed).
        page = page_of(request)
        loaded = opened(conversations.load(owned(store, request, profile), page), page)
        # A message the page showed just before it reloaded, whose turn never started,
        # comes back into the box (`smolui.turns.unsent`).
        unsent = chat.unsent.give_back(loaded[0])
        if unsent is None:
            return (*loaded, gr.MultimodalTextbox(interactive=True))
        return (*loaded, gr.MultimodalTextbox(value=unsent, interactive=True))

    def new_chat(
        store: Any, model: Any, request: gr.Request, profile: gr.OAuthProfile | None
    ) -> tuple:
        page, store = page_of(request), owned(store, request, profile)
        picked = str(model or "") or None
        shown = opening(page, store, lambda: conversations.new_chat(store, page, picked))
        return (*shown, *_controls(False))

    def opening(page: str | None, store: Any, open_it: Callable[[], tuple]) -> tuple:
        # A turn the page shows goes on, no longer shown here; the page's events that
        # followed it end before the page may send again (gradio holds back a page's next
        # turn event until the one before ends).
        views.leave(page)
        try:
            result = open_it()
        except Exception:  # nothing opened: the page still shows what it showed
            views.show(page, store.get("current") if isinstance(store, dict) else None)
            raise
        views.wait_quiet(page)
        return opened(result, page)

    def pick_model(
        model: Any,
        conversation_id: Any,
        store: Any,
        request: gr.Request,
        profile: gr.OAuthProfile | None,
    ) -> str:
        if not conversations.pick_model(str(model or ""), conversation_id):
            gr.Info("This conversation keeps its model; the one picked is for new chats.")
        # With the owner, a conversation whose agent a version switch let go is still shown.
        return chat.side_panel(conversation_id, owner=_owner(owned(store, request, profile)))

    def switch(
        wanted: Any,
        conversation_id: Any,
        store: Any,
        query: Any,
        request: gr.Request,
        profile: gr.OAuthProfile | None,
    ) -> tuple:
        page, store = page_of(request), owned(store, request, profile)
        found = str(query or "")  # a hit of the search opens on its branch
        pick = functools.partial(conversations.switch, wanted, conversation_id, store, page, found)
        shown = opening(page, store, pick)
        return (*shown, *_controls(_runs(chat, shown[0])))

    def unload(request: gr.Request) -> None:
        views.forget(page_of(request))
        conversations.page_closed(page_of(request))

    def follow(conversation_id: Any, earlier: list, request: gr.Request):
        # Touches the controls only when it follows a turn: this event may run late, after
        # the visitor already sent a message of their own.
        yield gr.skip(), gr.skip(), gr.skip(), gr.skip()  # gradio needs one update, always
        followed, page = False, page_of(request)
        turn = chat.follow(conversation_id, page)
        for shown in views.while_shown(page, conversation_id, turn):
            followed = True
            box = gr.MultimodalTextbox(interactive=False)
            yield window.tail(shown, earlier), box, stop_button(True), gr.skip()
        # The panel said "answering" since the page opened mid-turn; a page that opened
        # another conversation meanwhile has that one's controls.
        if followed and views.shows(page, conversation_id):
            ready = chat.side_panel(conversation_id)
            yield gr.skip(), gr.MultimodalTextbox(interactive=True), stop_button(False), ready

    def listed(result: tuple, conversation_id: Any) -> tuple:
        store, choices = result
        return store, gr.Radio(choices=choices, value=conversation_id)

    def found(result: tuple, conversation_id: Any, query: str) -> tuple:
        # An empty list would look like no conversations at all: it says the search found none.
        store, choices = result
        info = no_match(query) if query.strip() and not choices else None
        return store, gr.Radio(choices=choices, value=conversation_id, info=info)

    def search(
        query: Any,
        conversation_id: Any,
        store: Any,
        request: gr.Request,
        profile: gr.OAuthProfile | None,
    ) -> tuple:
        store = owned(store, request, profile)
        query = str(query or "")
        return found(conversations.refresh(conversation_id, store, query), conversation_id, query)

    def rename(
        title: Any,
        conversation_id: Any,
        store: Any,
        request: gr.Request,
        profile: gr.OAuthProfile | None,
    ) -> tuple:
        store = owned(store, request, profile)
        renamed = conversations.rename(str(title or ""), conversation_id, store)
        return (*listed(renamed, conversation_id), gr.Textbox(value=""))

    def delete(
        conversation_id: Any, store: Any, request: gr.Request, profile: gr.OAuthProfile | None
    ) -> tuple:
        page, store = page_of(request), owned(store, request, profile)
        shown = opening(page, store, lambda: conversations.delete(conversation_id, store, page))
        return (*shown, *_controls(False))

    def delete_all(store: Any, request: gr.Request, profile: gr.OAuthProfile | None) -> tuple:
        page, store = page_of(request), owned(store, request, profile)
        shown = opening(page, store, lambda: conversations.delete_all(store, page))
        return (*shown, *_controls(False))

    return {
        "load": load,
        "new_chat": new_chat,
        "pick_model": pick_model,
        "switch": switch,
        "unload": unload,
        "follow": follow,
        "search": search,
        "rename": rename,
        "delete": delete,
        "delete_all": delete_all,
    }
