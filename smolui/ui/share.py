"""The page's share controls: "Share a read-only link" makes a link to a snapshot of the
conversation shown, the link appears with a Copy button, and "Stop sharing" revokes every
link to it. Shown only when the operator allows sharing (`SMOLUI_SHARING`).
"""

# No `from __future__ import annotations`, as in `smolui.ui.wiring`: gradio reads handler
# annotations at runtime to inject the request.

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from smolui.auth import Identity, SignIn, with_identity
from smolui.ui.endpoints import INTERNAL
from smolui.ui.failures import safe

# Shows the link as a whole address (the server makes a path; the page knows its origin).
ABSOLUTE_JS = "(path) => path ? new URL(path, window.location.href).href : path"
STOPPED = "Sharing stopped: the link no longer opens."
NOTHING_TO_SHARE = "Nothing to share yet: send a message first."


@dataclass
class SharePanel:
    """The share controls (made inside the sidebar)."""

    include_uploads: Any
    share: Any
    link: Any
    stop: Any


def share_panel() -> SharePanel:
    """Create the share controls (inside a Blocks context)."""
    import gradio as gr

    with gr.Group(elem_classes="share-panel"):
        include = gr.Checkbox(
            False, label="Include my attachments", elem_classes="share-include-uploads"
        )
        share = gr.Button("Share a read-only link", size="sm", elem_classes="share-button")
        link = gr.Textbox(
            label="Read-only link",
            interactive=False,
            max_lines=1,
            buttons=["copy"],
            visible=False,
            elem_classes="share-link",
        )
        # The plain look: the theme's red "stop" buttons fall short of AA contrast.
        stop = gr.Button("Stop sharing", size="sm", visible=False, elem_classes="share-stop")
    return SharePanel(include_uploads=include, share=share, link=link, stop=stop)


class ShareActions:
    """What the share controls do, for one app.

    Args:
        links: The app's `smolui.api.share_routes.ShareLinks` (create, stop, shares).
        sign_in: Who a request comes from (None: everyone is anonymous).
    """

    def __init__(self, links: Any, sign_in: SignIn | None = None):
        self.links, self.sign_in = links, sign_in

    def owner(self, store: Any, request: Any, profile: Any) -> str:
        """The owner the page acts for (the signed-in user's id, else the browser's key).

        Args:
            store: The page's browser state (its owner key).
            request: The `gr.Request`.
            profile: The `gr.OAuthProfile` after a Hugging Face sign-in.
        """
        from smolui.handlers.conversations import owner_of

        who = self.sign_in.identify(request, profile) if self.sign_in else Identity()
        return owner_of(with_identity(store, who))

    def share(self, store: Any, conversation_id: Any, include: Any, request, profile) -> tuple:
        """Make a link; the link box and Stop shown (a notice when nothing is stored yet).

        Args:
            store: The page's browser state (its owner key).
            conversation_id: The conversation shown.
            include: Share the owner's attachments too.
            request: The `gr.Request`.
            profile: The `gr.OAuthProfile` after a Hugging Face sign-in.
        """
        import gradio as gr

        from smolui.sessions import is_conversation_id

        owner = self.owner(store, request, profile)
        path = None
        if is_conversation_id(conversation_id):
            path = self.links.create(owner, conversation_id, bool(include))
        if path is None:
            gr.Info(NOTHING_TO_SHARE)
            return gr.skip(), gr.skip()
        return gr.Textbox(value=path, visible=True), gr.Button(visible=True)

    def stop(self, store: Any, conversation_id: Any, request, profile) -> tuple:
        """Revoke the conversation's links; the link box and Stop hidden.

        Args:
            store: The page's browser state (its owner key).
            conversation_id: The conversation shown.
            request: The `gr.Request`.
            profile: The `gr.OAuthProfile` after a Hugging Face sign-in.
        """
        import gradio as gr

        from smolui.sessions import is_conversation_id

        if is_conversation_id(conversation_id):
            self.links.stop(self.owner(store, request, profile), conversation_id)
            gr.Info(STOPPED)
        return gr.Textbox(value="", visible=False), gr.Button(visible=False)

    def shown(self, store: Any, conversation_id: Any, request, profile) -> tuple:
        """Another conversation is shown: no link box; Stop while it has working links.

        Args:
            store: The page's browser state (its owner key).
            conversation_id: The conversation shown.
            request: The `gr.Request`.
            profile: The `gr.OAuthProfile` after a Hugging Face sign-in.
        """
        import gradio as gr

        from smolui.sessions import is_conversation_id

        active = 0
        if is_conversation_id(conversation_id):
            owner = self.owner(store, request, profile)
            active = self.links.shares().active(owner, conversation_id)
        return gr.Textbox(value="", visible=False), gr.Button(visible=active > 0)


def wire_share(
    panel: SharePanel,
    store: Any,
    conversation_id: Any,
    conversation_list: Any,
    actions: ShareActions,
    safe: Callable[[Callable], Callable],
) -> None:
    """Attach the share controls' events (call inside `with layout.demo:`).

    Args:
        panel: The share controls.
        store: The page's `gr.BrowserState` (its owner key).
        conversation_id: The page's conversation id (`gr.State`).
        conversation_list: The list of conversations (`gr.Radio`, its value the id shown).
        actions: What the controls do.
        safe: Turns a handler's failure into a readable notice (`smolui.ui.failures.safe`).
    """
    import gradio as gr

    def share(store, conversation_id, include, request: gr.Request,
              profile: gr.OAuthProfile | None) -> tuple:  # fmt: skip
        return actions.share(store, conversation_id, include, request, profile)

    def stop(store, conversation_id, request: gr.Request, profile: gr.OAuthProfile | None):
        return actions.stop(store, conversation_id, request, profile)

    def shown(store, conversation_id, request: gr.Request, profile: gr.OAuthProfile | None):
        return actions.shown(store, conversation_id, request, profile)

    outputs = [panel.link, panel.stop]
    inputs = [store, conversation_id]
    # Queued (without a limit) so their notices reach the page.
    options = dict(concurrency_limit=None, show_progress="hidden")
    panel.share.click(
        safe(share), [*inputs, panel.include_uploads], outputs, **options, api_visibility=INTERNAL
    ).then(
        None,
        [panel.link],
        [panel.link],
        js=ABSOLUTE_JS,
        show_progress="hidden",
        api_visibility=INTERNAL,
    )
    panel.stop.click(safe(stop), inputs, outputs, **options, api_visibility=INTERNAL)
    # The list's value is the conversation shown: it changes when the page loads one, a new
    # chat starts or the visitor picks another, and not while a turn streams. (A `gr.State`'s
    # change event does not follow the unqueued events that set it in gradio 6.31.) Its raw
    # value: a new chat's id is not among the list's choices yet, which the Radio refuses.
    conversation_list.change(
        safe(shown), [store, conversation_list], outputs,
        queue=False, preprocess=False, show_progress="hidden", api_visibility=INTERNAL,
    )  # fmt: skip


def share_events(layout: Any, links: Any, sign_in: SignIn | None = None) -> None:
    """Wire the page's share controls, when it has them (call inside `with layout.demo:`).

    Args:
        layout: The page's components (`smolui.ui.layout.Layout`; its `share` may be None).
        links: The app's `ShareLinks`.
        sign_in: Who a request comes from.
    """

    if layout.share is None:
        return
    actions = ShareActions(links, sign_in)
    ui = layout
    wire_share(ui.share, ui.store, ui.conversation_id, ui.conversations, actions, safe)


__all__ = ["SharePanel", "ShareActions", "share_events", "share_panel", "wire_share"]
