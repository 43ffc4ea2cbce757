"""Export a conversation (its stored chat) as Markdown or JSON, in pieces a route streams.

The Markdown stands alone: the agent's images are embedded (data URIs), and the server's
own paths (its upload and media folders, in code and logs) become bare file names. One turn
copied as Markdown (`turn_markdown`, the page's "Copy turn as Markdown") takes the same text
and files with steps as headings and images linked by the URL the page has for them.
"""

from __future__ import annotations

import base64
import functools
import json
import mimetypes
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from smolui.render.downloads import ZIP_LABEL
from smolui.render.durations import format_duration, plain_title
from smolui.render.media import named_by_the_app
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

# A step's heading level in a copied turn; its parts one below, a sub-agent's steps further.
STEP_HEADING = 3
# The footer (`smolui.render.messages.render_footer`): its words stay, its tags go.
_FOOTER = re.compile(r"^<sub>(.*)</sub>$", re.DOTALL)
# The page's root URL, which the links of a copied turn's files go under.
_WEB_ROOT = re.compile(r"^https?://[^\s()<>]+$")


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
    children, known = _children(history)
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


def _message_markdown(
    message: Message, children: dict[str, list[Message]], parent: Message | None = None
) -> list[str]:
    meta = _meta(message)
    body = _body_markdown(message.get("content"), _alt_text(message, parent))
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
        inner += _message_markdown(child, children, message)
    return [f"<details><summary>{summary}</summary>", "", *inner, "</details>", ""]


def _body_markdown(
    content: Any, alt: str, image: Callable[[Any, str], str | None] | None = None
) -> list[str]:
    """A message's content as Markdown lines: text without server paths, images as `image`
    writes them (default: embedded; `alt` describes an image without a name of its own),
    other files named."""
    if isinstance(content, (list, tuple)):
        return [line for block in content for line in _body_markdown(block, alt, image)]
    shown = (image or _embedded_image)(content, alt)
    if shown is not None:
        return [shown]
    return [
        f"Attached file: `{value}`"
        if kind == "file"
        else without_server_paths(without_route_links(value))
        for kind, value in content_parts(content)
    ]


def _alt_text(message: Message, parent: Message | None) -> str:
    """What an image in `message` shows, for a reader who cannot see it: "Image from Step 2"
    for a step's picture, "Image" otherwise (the agent's files are named by random hex).

    Args:
        message: The message holding the image.
        parent: The step it is nested under, if any.
    """
    title = plain_title(str(_meta(message).get("title") or "")) or "Image"
    step = plain_title(str(_meta(parent).get("title") or "")) if parent else ""
    return f"{title} from {step.split(' · ')[0]}" if step else title


def _image_name(file: dict[str, Any], alt: str) -> str:
    """An image's words in Markdown: the name a person gave it (an upload's), else `alt`."""
    path = str(file.get("path") or file.get("url") or "")
    name = str(file.get("orig_name") or os.path.basename(path))
    return _link_text(alt if not name or named_by_the_app(name) else name)


def _link_text(text: str) -> str:
    """`text` as the words of a Markdown link (brackets and backslashes escaped)."""
    return re.sub(r"([\\\[\]])", r"\\\1", text)


def _embedded_image(content: Any, alt: str) -> str | None:
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
    encoded = base64.b64encode(data).decode("ascii")
    return f"![{_image_name(file, alt)}](data:{mime};base64,{encoded})"


def turn_messages(history: list[Message], answered: int) -> list[Message]:
    """The agent's messages of one turn: those after the `answered`-th run of the person's
    messages and before the next one (a message with files is several messages in a row,
    which the page shows as one).

    Args:
        history: Chat messages as the page shows them.
        answered: How many runs of the person's messages come before the turn (0: what the
            agent said before any).
    """
    runs, previous, turn = 0, None, []
    for message in history:
        role = message.get("role")
        if role == "user" and previous != "user":
            runs += 1
        previous = role
        if role != "user" and runs == answered:
            turn.append(message)
    return turn


def turn_markdown(turn: list[Message], root: str = "") -> str:
    """One turn of the agent's as Markdown, for the clipboard: each step's title a heading,
    its parts (thought, code, tool calls, logs, errors, images) under it as the chat renders
    them, then the answer and the footer's words. Images are linked by the URL the page
    loads them from, never embedded and never by a server path.

    Args:
        turn: The turn's messages (`turn_messages`), as the page sends them.
        root: The page's root URL (`http://host/prefix`), before the files' own links
            (`/gradio_api/file=…`); none or not a web address: such files are named.
    """
    children, known = _children(turn)
    link = functools.partial(_linked_file, root=root if _WEB_ROOT.match(root) else "")
    lines: list[str] = []
    for message in turn:
        if _meta(message).get("parent_id") not in known:
            lines += _turn_part(message, children, STEP_HEADING, link, None)
    return "\n".join(lines).strip() + "\n"


def _turn_part(
    message: Message,
    children: dict[str, list[Message]],
    level: int,
    link: Callable[[Any, str], str | None],
    parent: Message | None,
) -> list[str]:
    meta = _meta(message)
    body = _body_markdown(message.get("content"), _alt_text(message, parent), link)
    lines = [line for text in body if text.strip() for line in (_FOOTER.sub(r"\1", text), "")]
    title = meta.get("title")
    if not title:
        return lines
    heading = "#" * min(level, 6) + " " + plain_title(str(title))
    log = str(meta.get("log") or "")
    lines = [heading, "", *([log, ""] if log else []), *lines]
    for child in children.get(meta.get("id"), []):
        lines += _turn_part(child, children, level + 1, link, message)
    return lines


def _linked_file(content: Any, alt: str, root: str) -> str | None:
    """A file in a message the page sent as a Markdown link to the URL the page has for it
    (an image as an image), or None: not a file, or no web address (then it is named)."""
    if not isinstance(content, dict):
        return None
    file = content.get("file") if isinstance(content.get("file"), dict) else content
    url = str(file.get("url") or "")
    if url.startswith("/") and not url.startswith("//") and root:
        url = root.rstrip("/") + url  # gradio's own link, under the page's root
    if not url.startswith(("http://", "https://")):
        return None
    path = str(file.get("path") or url)
    target = url.replace(" ", "%20").replace("(", "%28").replace(")", "%29")
    mime = file.get("mime_type") or mimetypes.guess_type(path)[0] or ""
    if str(mime).startswith("image/"):
        return f"![{_image_name(file, alt)}]({target})"
    name = str(file.get("orig_name") or os.path.basename(path) or "file")
    return f"[{_link_text(name)}]({target})"


def _children(history: list[Message]) -> tuple[dict[str, list[Message]], set[Any]]:
    """The messages nested under each step's id, and the ids of the steps."""
    children: dict[str, list[Message]] = {}
    known = {_meta(m).get("id") for m in history if _meta(m).get("id")}
    for message in history:
        parent = _meta(message).get("parent_id")
        if parent in known:
            children.setdefault(parent, []).append(message)
    return children, known


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
