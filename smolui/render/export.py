"""Export a conversation (its stored chat) as Markdown or JSON, in pieces a route streams.

The Markdown stands alone: the agent's images are embedded (data URIs), and the server's
own paths (its upload and media folders, in code and logs) become bare file names.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from smolui.render.downloads import ZIP_LABEL
from smolui.render.durations import format_duration, plain_title
from smolui.render.model_names import model_name

Message = dict[str, Any]

# Larger images are named, not embedded: the export stays a file a mail can carry.
MAX_EMBEDDED_BYTES = 5 * 1024 * 1024
# An absolute path of two or more parts, not inside a URL or a longer word ("a/b", "http://").
_SERVER_PATH = re.compile(r"(?<![\w:/.~-])/(?:[\w.+@-]+/)+([\w.+@-]+)")

# A Markdown link (not an image) to a path of this server: "[notes.txt](/files/…/notes.txt)".
_ROUTE_LINK = re.compile(r"(?<!!)\[((?:\\.|[^\]\\])*)\]\(/[^)\s]*\)")
# The line offering a turn's files as one zip (`smolui.render.downloads`): nothing to name.
_ZIP_LINE = re.compile(rf"^\[{re.escape(ZIP_LABEL)}\]\(/[^)\s]*\)[ \t]*\n?", re.MULTILINE)


def without_route_links(text: str) -> str:
    """`text` with links to the app's own routes (the files a turn wrote, their zip) reduced
    to their labels: an export is read away from the app, which may sit behind a proxy under
    another address and serves those files to their signed-in owner only, so no link written
    into the file could lead anywhere for its reader. The names and sizes stay.

    Args:
        text: Markdown text.
    """
    text = _ZIP_LINE.sub("", text)
    return _ROUTE_LINK.sub(r"\1", text)


def without_server_paths(text: str) -> str:
    """`text` with every absolute file path reduced to its file name, so an export does not
    tell where the server keeps files (`/srv/data/uploads/3f2a…/sales.csv` -> `sales.csv`).

    Args:
        text: Markdown text (code, logs, answers).
    """
    return _SERVER_PATH.sub(r"\1", text)


def content_parts(content: Any) -> list[tuple[str, str]]:
    """A message content as `(kind, value)` pairs: ("text", markdown) or ("file", name).

    Handles every shape the page sends: a string, a file dict, a component dict, or the
    normalized list of blocks gradio 6 passes to handlers.

    Args:
        content: A chat message's `content`.
    """
    if content is None:
        return []
    if isinstance(content, str):
        return [("text", content)]
    if isinstance(content, (list, tuple)):
        return [part for block in content for part in content_parts(block)]
    if isinstance(content, dict):
        if content.get("type") == "text":
            return [("text", str(content.get("text", "")))]
        file = content.get("file") if isinstance(content.get("file"), dict) else content
        path = file.get("path") or file.get("url") or (file.get("value") or {}).get("path")
        if path:
            name = file.get("orig_name") or os.path.basename(str(path))
            return [("file", str(name))]
    return [("text", str(content))]


def to_markdown(history: list[Message], title: str = "Conversation", model: str = "") -> str:
    """The conversation as Markdown; steps become `<details>` blocks, nested as on the page.

    Args:
        history: Chat messages (dicts with role, content, optional metadata).
        title: The document heading.
        model: The model's name, noted under the heading.
    """
    return "".join(markdown_pieces(history, title, model)).rstrip() + "\n"


def markdown_pieces(
    history: list[Message], title: str = "Conversation", model: str = ""
) -> Iterator[str]:
    """The Markdown export one top-level message at a time (images are read as they come,
    so a long conversation is never held whole).

    Args:
        history: Chat messages.
        title: The document heading.
        model: The model's name.
    """
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    model = model_name(model)  # a scripted file by its name, not the server's path
    yield f"# {title}\n\n_Exported {stamp}" + (f" · model: {model}_" if model else "_") + "\n\n"
    children: dict[str, list[Message]] = {}
    known = {_meta(m).get("id") for m in history if _meta(m).get("id")}
    for message in history:
        parent = _meta(message).get("parent_id")
        if parent in known:
            children.setdefault(parent, []).append(message)
    last_role = None
    for message in history:
        if _meta(message).get("parent_id") in known:
            continue
        lines = []
        role = message.get("role")
        if role != last_role:
            lines += ["## You" if role == "user" else "## Agent", ""]
            last_role = role
        lines += _message_markdown(message, children)
        yield "\n".join(lines) + "\n"


def _message_markdown(message: Message, children: dict[str, list[Message]]) -> list[str]:
    meta = _meta(message)
    body = _body_markdown(message.get("content"))
    body = [text for text in body if text.strip()]
    title = meta.get("title")
    if not title:
        return [*body, ""]
    duration = meta.get("duration")  # chats saved before the time moved into `log`
    extras = [
        format_duration(duration) if isinstance(duration, (int, float)) else "",
        str(meta.get("log") or ""),
    ]
    # A step saved while it ran (waiting for an approval) keeps its start for the page's timer.
    summary = " · ".join([plain_title(str(title)), *[e for e in extras if e]])
    inner = list(body)
    for child in children.get(meta.get("id"), []):
        inner += _message_markdown(child, children)
    return [f"<details><summary>{summary}</summary>", "", *inner, "</details>", ""]


def _body_markdown(content: Any) -> list[str]:
    """A message's content as Markdown lines: text without server paths, images embedded,
    other files named."""
    if isinstance(content, (list, tuple)):
        return [line for block in content for line in _body_markdown(block)]
    image = _embedded_image(content)
    if image is not None:
        return [image]
    return [
        f"Attached file: `{value}`"
        if kind == "file"
        else without_server_paths(without_route_links(value))
        for kind, value in content_parts(content)
    ]


def _embedded_image(content: Any) -> str | None:
    """An image file in a message as Markdown with a data URI, or None (not an image, not
    readable, or too large to embed)."""
    if not isinstance(content, dict):
        return None
    file = content.get("file") if isinstance(content.get("file"), dict) else content
    path = file.get("path") or (file.get("value") or {}).get("path")
    if not path:
        return None
    mime = file.get("mime_type") or mimetypes.guess_type(str(path))[0] or ""
    if not str(mime).startswith("image/"):
        return None
    try:
        if os.path.getsize(path) > MAX_EMBEDDED_BYTES:
            return None
        data = Path(path).read_bytes()
    except OSError:
        return None
    name = str(file.get("orig_name") or os.path.basename(str(path)))
    encoded = base64.b64encode(data).decode("ascii")
    return f"![{name}](data:{mime};base64,{encoded})"


def to_json(history: list[Message], model: str = "") -> str:
    """The conversation as JSON: messages with role, text, files and metadata.

    Args:
        history: Chat messages.
        model: The model's name.
    """
    messages = []
    for message in history:
        parts = content_parts(message.get("content"))
        text = "\n".join(value for kind, value in parts if kind == "text")
        entry: dict[str, Any] = {
            "role": message.get("role"),
            "text": without_server_paths(without_route_links(text)),
            "files": [value for kind, value in parts if kind == "file"],
        }
        meta = {k: v for k, v in _meta(message).items() if v not in (None, "")}
        if "title" in meta:
            meta["title"] = plain_title(str(meta["title"]))
        if meta:
            entry["metadata"] = meta
        messages.append(entry)
    document = {
        "format": "smolui-conversation/1",
        "exported_at": time.time(),
        "model": model_name(model),
        "messages": messages,
    }
    return json.dumps(document, indent=2, ensure_ascii=False, default=str)


def export_name(fmt: str) -> str:
    """The file name a download of the export gets.

    Args:
        fmt: "md" or "json".
    """
    return f"conversation-{time.strftime('%Y%m%d-%H%M%S')}.{'json' if fmt == 'json' else 'md'}"


def export_pieces(history: list[Message], fmt: str, model: str = "") -> Iterator[str]:
    """The export as text pieces, for a route to stream.

    Args:
        history: Chat messages (the stored conversation's).
        fmt: "md" or "json".
        model: The model's name.
    """
    if fmt == "json":
        yield to_json(history, model)
    else:
        yield from markdown_pieces(history, "smolui conversation", model)


def _meta(message: Message) -> dict[str, Any]:
    meta = message.get("metadata")
    return meta if isinstance(meta, dict) else {}
