"""How attached files look in the chat once the server has read them: a note per file that
says what it is (name, type, size) or why it was refused, and the visitor's own attachment
struck through when it was refused, so a refused file never looks like an accepted one.
No gradio.
"""

from __future__ import annotations

import os
from typing import Any

from smolui.render.messages import Message, render_notice
from smolui.uploads.describe import details, human_size
from smolui.uploads.ingest import IngestResult, RefusedFile, check_upload
from smolui.uploads.names import display_name
from smolui.uploads.policy import UploadPolicy

ATTACHED_ICON = "✓"
REFUSED_ICON = "✕"
# A refused attachment's message starts with this, so the chat's actions know it was a
# file (not text the visitor typed).
REFUSED_PREFIX = f"{REFUSED_ICON} ~~"


def attachment_notes(result: IngestResult) -> list[Message]:
    """One note per file: attached with its details, or refused with the reason.

    Args:
        result: What became of the message's files.
    """
    notes = []
    for item in result.accepted:
        line = f"Attached {item.display_name} ({details(item)})."
        notes.append(render_notice(f"{line} {item.note}" if item.note else line, ATTACHED_ICON))
    for refused in result.refused:
        line = f"Could not attach {refused.display_name}: {refused.reason}."
        notes.append(render_notice(line, REFUSED_ICON))
    return notes


def attachment_checks(files: list[Any], policy: UploadPolicy) -> list[dict[str, Any]]:
    """What the page shows on each file just put in the message box, before it is sent:
    its name, type and size, and why it will be refused (None when it passes the checks
    that `smolui.uploads.ingest` makes on a file's name, size and first bytes).

    Args:
        files: The message box's files (paths, or gradio's file dicts), in the box's order.
        policy: The upload limits.
    """
    checks = []
    for file in files or []:
        path, original = _path_and_name(file)
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        extension = os.path.splitext(original)[1].lstrip(".").upper() or "file"
        checks.append(
            {
                "name": display_name(original),
                "type": extension,
                "size": human_size(size),
                "refused": check_upload(original, path, policy),
            }
        )
    return checks


def _path_and_name(file: Any) -> tuple[str, str]:
    """A box file's server path and original name (a path string or a file dict)."""
    if isinstance(file, dict):
        path = str(file.get("path") or "")
        return path, str(file.get("orig_name") or os.path.basename(path))
    return str(file), os.path.basename(str(file))


def refused_chip(name: str, reason: str) -> str:
    """The text that replaces a refused attachment in the visitor's message.

    Args:
        name: The file's display name.
        reason: Why it was refused, in plain words.
    """
    return f"{REFUSED_PREFIX}{_escape(name)}~~ · refused: {reason}"


def is_refused_chip(content: Any) -> bool:
    """Whether a message content is a refused attachment (see `refused_chip`).

    Args:
        content: A chat message's content (a string or gradio's normalized blocks).
    """
    if isinstance(content, (list, tuple)) and len(content) == 1:
        content = content[0]
    if isinstance(content, dict) and content.get("type") == "text":
        content = content.get("text")
    return isinstance(content, str) and content.startswith(REFUSED_PREFIX)


def mark_refused(history: list[Message], refused: list[RefusedFile]) -> list[Message]:
    """The chat with the visitor's refused attachments struck through, saying why.

    Only the last user turn is looked at: that is the message whose files were read.

    Args:
        history: The chat, ending with the visitor's message.
        refused: The files the server refused.
    """
    reasons = {item.display_name: item.reason for item in refused}
    users = [i for i, message in enumerate(history) if message.get("role") == "user"]
    if not reasons or not users:
        return history
    first = users[-1]
    while first > 0 and history[first - 1].get("role") == "user":
        first -= 1
    marked = list(history)
    for index in range(first, users[-1] + 1):
        name = _file_name(marked[index].get("content"))
        if name is not None and name in reasons:
            # A list, not a string: the chip is not something the visitor typed, so it
            # never becomes the conversation's title.
            chip = refused_chip(name, reasons.pop(name))
            marked[index] = {"role": "user", "content": [chip]}
    return marked


def _file_name(content: Any) -> str | None:
    """The display name of a file message's file (as ingestion names it), else None."""
    if isinstance(content, (list, tuple)) and len(content) == 1:
        content = content[0]
    if not isinstance(content, dict):
        return None
    file = content.get("file") if isinstance(content.get("file"), dict) else content
    path = file.get("path")
    if not path:
        return None
    return display_name(str(file.get("orig_name") or os.path.basename(str(path))))


def _escape(name: str) -> str:
    """A file name safe inside Markdown emphasis (no stray markup)."""
    return "".join(f"\\{char}" if char in "\\`*_~[]<>|" else char for char in name)
