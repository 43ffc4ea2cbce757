"""Files in and out of the page: an export that downloads in one click, and the server's
checks of the files put in the message box, shown on their chips before anything is sent.
"""

# No `from __future__ import annotations`, as in `smolui.ui.wiring`: gradio reads handler
# annotations at runtime.

from collections.abc import Callable
from typing import Any

from smolui.handlers.chat import ChatHandlers
from smolui.render.attachments import attachment_checks
from smolui.render.export import write_export
from smolui.ui.layout import Layout

# Runs in the browser once an export's file is ready: the download starts at once (the
# file also stays in the sidebar, to download again).
DOWNLOAD_JS = """(file) => {
  if (!file || !file.url) return;
  const link = document.createElement("a");
  link.href = file.url;
  link.download = file.orig_name || "";
  document.body.appendChild(link);
  link.click();
  link.remove();
}"""
# Hands the server's checks of the box's files to the page script (smolui/assets/chips.js).
CHECKS_JS = "(checks) => { window.smoluiAttachmentChecks?.(checks); }"


def wire_export(ui: Layout, model_label: Callable[[], str]) -> None:
    """ "↓ Markdown" and "↓ JSON" write the conversation and download it in one click
    (call inside `with layout.demo:`).

    Args:
        ui: The page's components.
        model_label: The model's display name (noted in the export).
    """
    from smolui.ui.wiring import safe  # wiring imports this module

    for button, fmt in ((ui.export_md, "md"), (ui.export_json, "json")):
        export = safe(lambda history, fmt=fmt: str(write_export(history or [], fmt, model_label())))
        button.click(export, [ui.chatbot], [ui.export_file]).then(
            None, [ui.export_file], None, js=DOWNLOAD_JS, show_progress="hidden"
        )


def wire_attachment_checks(ui: Layout, chat: ChatHandlers) -> None:
    """Files put in the message box are checked by the server at once, with the checks a
    sent message gets, so a chip turns red with the reason before anything is sent (call
    inside `with layout.demo:`).

    Args:
        ui: The page's components (its hidden `attachment_checks` and `check_files`; None:
            no checks).
        chat: The page's handlers (their upload policy).
    """
    from smolui.ui.wiring import safe  # wiring imports this module

    if ui.attachment_checks is None or ui.check_files is None:
        return
    policy = chat.config.policy

    def check(message: Any) -> list:
        files = message.get("files") if isinstance(message, dict) else None
        return attachment_checks(list(files or []), policy)

    ui.check_files.click(
        safe(check), [ui.textbox], [ui.attachment_checks], queue=False, show_progress="hidden"
    ).then(None, [ui.attachment_checks], None, js=CHECKS_JS, show_progress="hidden")
