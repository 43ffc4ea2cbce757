"""The message under an answer that offers the files the agent's code wrote for download,
and the same links as the side panel lists them, each saying which of the person's messages
its turn answered ("report.csv · message 3"): a conversation's turns may write files of the
same name.

Each link goes through the app's own route (`smolui.api.file_routes`), never gradio's file
cache: `<prefix>/<batch>/<key>/<id>/<name>` for one file, `<prefix>/<batch>/<key>/all.zip`
for all of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from smolui.render.messages import Message, render_notice

HEADING = "**Files this turn wrote**"
ZIP_LABEL = "Download all (.zip)"
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")
OTHER_BRANCH = "another branch"  # a turn whose message is not on the branch shown


@dataclass(frozen=True)
class PlacedFile:
    """A stored file as the side panel lists it, with where its turn is in the chat shown.

    Args:
        file: The stored file (an `OutputFile`: its batch, key, id, name and size).
        place: "message 3" (the person's third message asked for it), `OTHER_BRANCH`, or ""
            when the chat could not be read.
    """

    file: Any
    place: str = ""


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
    lines = [HEADING, "", *file_lines(files, prefix)]  # under its own turn: no place said
    if len(files) > 1:
        first = files[0]
        lines += ["", f"[{ZIP_LABEL}]({prefix}/{first.batch}/{first.key}/all.zip)"]
    return {"role": "assistant", "content": "\n".join(lines)}


def file_lines(files: Sequence[Any], prefix: str) -> list[str]:
    """One Markdown list item per file: its name (and its place, for a `PlacedFile`) as a
    download link, so that a link's accessible name tells same-named files apart, and its
    size.

    Args:
        files: Stored files (`OutputFile`s, or `PlacedFile`s for the side panel).
        prefix: The download route's prefix.
    """
    lines = []
    for item in files:
        file, place = (item.file, item.place) if isinstance(item, PlacedFile) else (item, "")
        label = _MARKDOWN_SPECIAL.sub(r"\\\1", file.name) + (f" · {place}" if place else "")
        lines.append(f"- [{label}]({file_url(prefix, file)}) · {file_size(file.size)}")
    return lines


def place_files(files: Sequence[Any], chat: list[Any] | None, prefix: str) -> list[PlacedFile]:
    """The files with the place of the turn that wrote each in the chat shown (for the side
    panel, which lists every turn's files).

    Args:
        files: Stored files of the conversation (`OutputFile`s).
        chat: The chat shown (the branch shown), or None when it could not be read.
        prefix: The download route's prefix (the chat's download lists link under it).
    """
    if chat is None:
        return [PlacedFile(file) for file in files]
    messages = turn_messages(chat, prefix)
    return [
        PlacedFile(
            file, f"message {messages[file.batch]}" if file.batch in messages else OTHER_BRANCH
        )
        for file in files
    ]


def turn_messages(chat: list[Any], prefix: str) -> dict[str, int]:
    """batch -> the number of the person's message (1 for the first) whose turn wrote it,
    read from the download lists in the chat: each follows its own turn's answer.

    Args:
        chat: The chat shown.
        prefix: The download route's prefix.
    """
    batch_in_link = re.compile(r"\]\(" + re.escape(prefix) + r"/([^/)]+)/")
    found: dict[str, int] = {}
    number, previous = 0, None
    for message in chat:
        role = message.get("role") if isinstance(message, dict) else None
        if role == "user" and previous != "user":  # a message's files and text: one message
            number += 1
        previous = role
        if number and is_downloads(message, prefix):
            for batch in batch_in_link.findall(_text(message)):
                found.setdefault(batch, number)
    return found


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
    text = _text(message)
    return text.startswith(HEADING) and f"]({prefix}/" in text


def _text(message: Any) -> str:
    """A chat message's text (none for a file)."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # gradio's normalized blocks
        return " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return content if isinstance(content, str) else ""


__all__ = [
    "OTHER_BRANCH",
    "PlacedFile",
    "file_lines",
    "file_size",
    "file_url",
    "is_downloads",
    "place_files",
    "render_downloads",
    "render_not_kept",
    "turn_messages",
]
