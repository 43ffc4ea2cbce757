"""Files in and out of the page: an export that downloads in one click, and the server's
checks of the files put in the message box, shown on their chips before anything is sent.
"""

# No `from __future__ import annotations`, as in `smolui.ui.wiring`: gradio reads handler
# annotations at runtime.

from collections.abc import Callable
from typing import Any

from smolui.handlers.chat import ChatHandlers
from smolui.render.attachments import attachment_checks
from smolui.ui.endpoints import INTERNAL
from smolui.ui.failures import safe
from smolui.ui.layout import Layout

# Makes an export link for an owner's conversation: (owner, conversation id, "md"|"json");
# None when nothing of it is stored yet.
ExportLink = Callable[[str, str, str], str | None]
NOTHING_TO_EXPORT = "Nothing to export yet: send a message first."
# Runs in the browser once the server made an export's link: the download starts at once.
DOWNLOAD_JS = """(link) => {
  if (!link || !link.url) return;
  const anchor = document.createElement("a");
  anchor.href = link.url;
  anchor.download = "";
  document.body.appendChild(anchor);
  anchor.click();
  anchor.remove();
}"""
# Hands the server's checks of the box's files to the page script (smolui/assets/chips.js).
CHECKS_JS = "(checks) => { window.smoluiAttachmentChecks?.(checks); }"
# Hands the box's files (path, original name, size) to the same script whenever the box
# changes: attached by hand, by an example, or emptied by a send. Runs in the browser only.
BOX_FILES_JS = "(message) => { window.smoluiBoxFiles?.(message); }"


def wire_export(ui: Layout, export_link: ExportLink, identify: Callable) -> None:
    """ "↓ Markdown" and "↓ JSON" download the stored conversation in one click, streamed by
    the app's export route (call inside `with layout.demo:`).

    Args:
        ui: The page's components.
        export_link: Makes the link (`smolui.api.export_routes.ExportTickets.url`).
        identify: Who sent a request (`identify(request, profile)`).
    """
    import gradio as gr

    from smolui.auth import with_identity
    from smolui.handlers.conversations import owner_of
    from smolui.sessions import is_conversation_id

    link = gr.JSON(None, visible=False)
    for button, fmt in ((ui.export_md, "md"), (ui.export_json, "json")):

        def export(
            store: Any,
            conversation_id: Any,
            request: gr.Request,
            profile: gr.OAuthProfile | None,
            fmt: str = fmt,
        ) -> dict | None:
            owner = owner_of(with_identity(store, identify(request, profile)))
            url = (
                export_link(owner, conversation_id, fmt)
                if is_conversation_id(conversation_id)
                else None
            )
            if url is None:
                gr.Info(NOTHING_TO_EXPORT)
                return None
            return {"url": url}

        # Queued (without a limit) so that "nothing to export yet" can reach the page.
        button.click(
            safe(export),
            [ui.store, ui.conversation_id],
            [link],
            concurrency_limit=None,
            show_progress="hidden",
            api_visibility=INTERNAL,
        ).then(None, [link], None, js=DOWNLOAD_JS, show_progress="hidden", api_visibility=INTERNAL)


def wire_attachment_checks(ui: Layout, chat: ChatHandlers) -> None:
    """Files put in the message box are checked by the server at once, with the checks a
    sent message gets, so a chip shows the file's name, type and size and turns red with the
    reason before anything is sent (call inside `with layout.demo:`). The page script learns
    the box's files from the box itself, so a file gradio refused on its own (too big) leaves
    the other chips as they were, and an example's file is shown like one attached by hand.

    Args:
        ui: The page's components (its hidden `attachment_checks` and `check_files`; None:
            no checks).
        chat: The page's handlers (their upload policy).
    """

    if ui.attachment_checks is None or ui.check_files is None:
        return
    policy = chat.config.policy

    def check(message: Any) -> list:
        files = message.get("files") if isinstance(message, dict) else None
        return attachment_checks(list(files or []), policy)

    ui.textbox.change(
        None, [ui.textbox], None, js=BOX_FILES_JS, show_progress="hidden", api_visibility=INTERNAL
    )
    ui.check_files.click(
        safe(check),
        [ui.textbox],
        [ui.attachment_checks],
        queue=False,
        show_progress="hidden",
        api_visibility=INTERNAL,
    ).then(
        None,
        [ui.attachment_checks],
        None,
        js=CHECKS_JS,
        show_progress="hidden",
        api_visibility=INTERNAL,
    )
