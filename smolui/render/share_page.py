"""A shared conversation: the snapshot a link keeps, and the read-only HTML page it shows.

The snapshot is taken from the stored chat of the branch shown when the owner shares it: text
without the server's paths, the agent's images by number (the share route serves them), and
the owner's download lists dropped (their links are the owner's). The owner's own attachments
are left out unless they chose to share them, and so are their names: every mention (the
title, the "Attached …" note, the code that opened it, in any spelling: `hidden_names`) reads
`HIDDEN_NAME` instead. Shared, an image shows in the page and any other file is a download
link, both served by number. The page is plain server-rendered HTML: no script, no form,
nothing to run; raw HTML in messages is shown as text.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import re
from collections.abc import Callable
from typing import Any

from smolui.render.downloads import is_downloads
from smolui.render.durations import plain_title
from smolui.render.export import without_server_paths
from smolui.render.hidden_names import HIDDEN_NAME, hider, upload_names

SNAPSHOT_FORMAT = 1
# Images a browser shows without running anything (no SVG: it may hold scripts).
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
# Words, not a paperclip: the emoji has no font on many systems and drew as an empty box.
NOT_SHARED = "Attachment (not shared)"
_SUB_TAG = re.compile(r"</?sub>")  # the turn footer's only markup
_STYLE = """
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #57606a;
  --line: #d0d7de; --code: #f6f8fa; --link: #0550ae; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117;
  --muted: #9da7b3; --line: #30363d; --code: #161b22; --link: #79b8ff; } }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 52rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
header p, .log, .note { color: var(--muted); }
a { color: var(--link); }
h2 { font-size: 1rem; margin: 1.75rem 0 .5rem; border-top: 1px solid var(--line);
  padding-top: 1rem; }
details { border: 1px solid var(--line); border-radius: 6px; padding: .25rem .75rem;
  margin: .5rem 0; }
summary { cursor: pointer; font-weight: 600; }
pre, code { background: var(--code); font-family: ui-monospace, monospace; font-size: .9em; }
pre { padding: .75rem; border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; }
img { max-width: 100%; height: auto; }
table { border-collapse: collapse; } th, td { border: 1px solid var(--line); padding: .25rem .5rem; }
"""


def share_snapshot(
    chat: list[dict[str, Any]], downloads_prefix: str, include_uploads: bool = False
) -> dict[str, Any]:
    """The snapshot a share link keeps (JSON data).

    Args:
        chat: The stored chat of the branch shown, safe to show (`ConversationKeeper.chat`).
        downloads_prefix: The download route's prefix (download lists are left out).
        include_uploads: Share the owner's attachments too (images shown, others served as
            downloads); otherwise their names are hidden everywhere.
    """
    hide = hider(() if include_uploads else upload_names(chat))
    messages, images, files = [], [], []
    for message in chat:
        if not isinstance(message, dict) or is_downloads(message, downloads_prefix):
            continue
        role = "user" if message.get("role") == "user" else "assistant"
        part = _part(message.get("content"), role, include_uploads, images, files, hide)
        meta = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
        kept = {k: hide(str(meta[k])) for k in ("title", "id", "parent_id", "log") if meta.get(k)}
        if part is None and not kept.get("title"):  # a step's heading holds its children
            continue
        messages.append({"role": role, "meta": kept, "part": part})
    return {"format": SNAPSHOT_FORMAT, "messages": messages, "images": images, "files": files}


def _name(content: dict) -> str:
    return str(content.get("orig_name") or content["path"].rsplit("/", 1)[-1])


def _part(
    content: Any,
    role: str,
    include_uploads: bool,
    images: list,
    files: list,
    hide: Callable[[str], str],
) -> dict | None:
    """One message's content in the snapshot: text, an image's or a file's number, or a note."""
    if isinstance(content, str):
        text = hide(without_server_paths(_SUB_TAG.sub("", content)))
        return {"text": text} if text.strip() else None
    if not isinstance(content, dict) or not isinstance(content.get("path"), str):
        return None
    name = _name(content)
    if role == "user" and not include_uploads:
        return {"note": NOT_SHARED}
    mime = str(content.get("mime_type") or _guess_type(name))
    if mime in IMAGE_TYPES:
        images.append({"path": content["path"], "mime_type": mime})
        return {"image": len(images) - 1, "name": hide(name)}
    if role == "user":  # shared by the owner's choice: a download from the share
        files.append({"path": content["path"], "name": name})
        return {"file": len(files) - 1, "name": name}
    return {"note": f"Attachment: {hide(name)}"}


def _guess_type(name: str) -> str:
    import mimetypes

    return mimetypes.guess_type(name)[0] or ""


def shared_file(snapshot: Any, index: int) -> tuple[str, str] | None:
    """The path and name of shared attachment `index` of a snapshot, or None.

    Args:
        snapshot: A stored snapshot.
        index: The file's number.
    """
    files = snapshot.get("files") if isinstance(snapshot, dict) else None
    if not isinstance(files, list) or not 0 <= index < len(files):
        return None
    file = files[index]
    if not isinstance(file, dict) or not isinstance(file.get("path"), str):
        return None
    return file["path"], str(file.get("name") or "file")


def shared_image(snapshot: Any, index: int) -> tuple[str, str] | None:
    """The path and type of image `index` of a snapshot, or None.

    Args:
        snapshot: A stored snapshot.
        index: The image's number.
    """
    images = snapshot.get("images") if isinstance(snapshot, dict) else None
    if not isinstance(images, list) or not 0 <= index < len(images):
        return None
    image = images[index]
    if not isinstance(image, dict) or image.get("mime_type") not in IMAGE_TYPES:
        return None
    return str(image.get("path")), str(image["mime_type"])


def share_page(
    title: str,
    snapshot: Any,
    image_url: Callable[[int], str],
    file_url: Callable[[int], str] | None = None,
) -> str:
    """The read-only page of a shared conversation (a whole HTML document).

    Args:
        title: The conversation's title when it was shared.
        snapshot: The stored snapshot (`share_snapshot`).
        image_url: Where the page loads image `n` of the snapshot from.
        file_url: Where shared attachment `n` downloads from (None: named, not linked).
    """
    messages = snapshot.get("messages") if isinstance(snapshot, dict) else None
    messages = [m for m in messages or [] if isinstance(m, dict)]
    known = {m["meta"]["id"] for m in messages if _meta(m).get("id")}
    children: dict[str, list[dict]] = {}
    for message in messages:
        parent = _meta(message).get("parent_id")
        if parent in known:
            children.setdefault(parent, []).append(message)
    part_html = functools.partial(_part_html, image_url=image_url, file_url=file_url)
    body, last_role = [], None
    for message in messages:
        if _meta(message).get("parent_id") in known:
            continue
        if message.get("role") != last_role:
            last_role = message.get("role")
            body.append("<h2>You</h2>" if last_role == "user" else "<h2>Agent</h2>")
        body.append(_message_html(message, children, part_html))
    safe_title = html.escape(title or "Shared conversation")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="robots" content="noindex">'
        f"<title>{safe_title} · shared conversation</title><style>{_STYLE}</style></head>"
        f"<body><main><header><h1>{safe_title}</h1><p>A read-only copy of a conversation, "
        "as it was when it was shared.</p></header>" + "\n".join(body) + "</main></body></html>\n"
    )


def _message_html(
    message: dict, children: dict[str, list[dict]], part_html: Callable[[Any], str]
) -> str:
    meta = _meta(message)
    inner = part_html(message.get("part"))
    title = plain_title(str(meta.get("title") or ""))
    if not title:
        return inner
    log = f' <span class="log">{html.escape(meta["log"])}</span>' if meta.get("log") else ""
    nested = "".join(
        _message_html(child, children, part_html) for child in children.get(meta.get("id"), [])
    )
    return f"<details><summary>{html.escape(title)}{log}</summary>{inner}{nested}</details>"


def _part_html(
    part: Any, image_url: Callable[[int], str], file_url: Callable[[int], str] | None
) -> str:
    if not isinstance(part, dict):
        return ""
    if isinstance(part.get("text"), str):
        return markdown_html(part["text"])
    if isinstance(part.get("image"), int):
        name = html.escape(str(part.get("name") or "image"), quote=True)
        src = html.escape(image_url(part["image"]), quote=True)
        return f'<p><img src="{src}" alt="{name}"></p>'
    if isinstance(part.get("file"), int):
        name = html.escape(str(part.get("name") or "file"), quote=True)
        if file_url is None:
            return f'<p class="note">Attachment: {name}</p>'
        href = html.escape(file_url(part["file"]), quote=True)
        return f'<p>Attachment: <a href="{href}" download="{name}">{name}</a></p>'
    if isinstance(part.get("note"), str):
        return f'<p class="note">{html.escape(part["note"])}</p>'
    return ""


def markdown_html(text: str) -> str:
    """Markdown as HTML, with any raw HTML in it escaped (shown as text, never run).

    Args:
        text: Markdown from a message.
    """
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    return renderer.render(text)


def content_security_policy() -> str:
    """The page's Content-Security-Policy: nothing runs, nothing is sent, only its own style
    and images from the app (or `data:` ones, which go nowhere)."""
    digest = base64.b64encode(hashlib.sha256(_STYLE.encode("utf-8")).digest()).decode("ascii")
    return (
        f"default-src 'none'; style-src 'sha256-{digest}'; img-src 'self' data:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def _meta(message: dict) -> dict:
    meta = message.get("meta")
    return meta if isinstance(meta, dict) else {}


__all__ = [
    "HIDDEN_NAME",
    "IMAGE_TYPES",
    "content_security_policy",
    "markdown_html",
    "share_page",
    "share_snapshot",
    "shared_file",
    "shared_image",
    "hider",
    "upload_names",
]
