"""The message under an answer that offers the files the agent's code wrote for download,
and the same links as the side panel lists them.

Each link goes through the app's own route (`smolui.api.file_routes`), never gradio's file
cache: `<prefix>/<batch>/<key>/<id>/<name>` for one file, `<prefix>/<batch>/<key>/all.zip`
for all of them.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from smolui.render.messages import Message, render_notice

HEADING = "**Files this turn wrote**"
ZIP_LABEL = "Download all (.zip)"
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")


def file_size(size: int) -> str:
    """A byte count for people: "812 B", "4.2 KB", "3.1 MB".

    Args:
        size: Bytes.
    """
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def file_url(prefix: str, file: Any) -> str:
    """The download link of one stored file (an `OutputFile`).

    Args:
        prefix: The route's prefix.
        file: The stored file (its batch, key, id and name).
    """
    name = quote(file.name.rsplit("/", 1)[-1] or "file", safe="")
    return f"{prefix}/{file.batch}/{file.key}/{file.id}/{name}"


def render_downloads(files: list[Any], prefix: str) -> Message:
    """One assistant message listing `files` with a download link each, and a link to a zip
    of them all when there is more than one.

    Args:
        files: Stored files of one turn (`OutputFile`s), not empty.
        prefix: The download route's prefix.
    """
    lines = [HEADING, "", *file_lines(files, prefix)]
    if len(files) > 1:
        first = files[0]
        lines += ["", f"[{ZIP_LABEL}]({prefix}/{first.batch}/{first.key}/all.zip)"]
    return {"role": "assistant", "content": "\n".join(lines)}


def file_lines(files: list[Any], prefix: str) -> list[str]:
    """One Markdown list item per file: its name as a download link, and its size.

    Args:
        files: Stored files (`OutputFile`s).
        prefix: The download route's prefix.
    """
    lines = []
    for file in files:
        label = _MARKDOWN_SPECIAL.sub(r"\\\1", file.name)
        lines.append(f"- [{label}]({file_url(prefix, file)}) · {file_size(file.size)}")
    return lines


def render_not_kept(reason: str) -> Message:
    """A notice that a turn's files were not kept, and why.

    Args:
        reason: For the owner (e.g. over their quota).
    """
    return render_notice(reason, "⚠️")


def is_downloads(message: Any, prefix: str) -> bool:
    """Whether a chat message is a download list (a shared view leaves those out: their
    links are the owner's).

    Args:
        message: A chat message.
        prefix: The download route's prefix.
    """
    content = message.get("content") if isinstance(message, dict) else None
    text = content if isinstance(content, str) else ""
    if isinstance(content, list):  # gradio's normalized blocks
        text = " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return text.startswith(HEADING) and f"]({prefix}/" in text


__all__ = [
    "file_lines",
    "file_size",
    "file_url",
    "is_downloads",
    "render_downloads",
    "render_not_kept",
]
