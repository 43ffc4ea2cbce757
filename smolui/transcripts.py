"""The browser's own record of its conversations (kept in `gr.BrowserState`).

The store is `{"current": id, "conversations": [{"id", "title", "updated", "messages"}]}`.
It comes back from the browser, so everything read from it is checked: unknown shapes are
dropped, and file paths outside the folders the app serves are removed (a forged path must
never make the server read a file).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

MAX_CONVERSATIONS = 20
MAX_MESSAGES = 400
MAX_STORE_CHARS = 2_000_000  # browsers give an origin about 5 MB of localStorage
TITLE_CHARS = 48
_META_KEYS = {
    "title": str,
    "id": str,
    "parent_id": str,
    "log": str,
    "status": str,
    "duration": (int, float),
}


def empty_store() -> dict[str, Any]:
    """A store with no conversation."""
    return {"current": None, "conversations": []}


def normalize_store(value: Any, allowed_roots: Iterable[str] = ()) -> dict[str, Any]:
    """A clean store from whatever the browser sent.

    Args:
        value: The BrowserState value.
        allowed_roots: Folders whose files may be shown again (the app's media and cache).
    """
    if not isinstance(value, dict):
        return empty_store()
    roots = [os.path.realpath(root) for root in allowed_roots]
    conversations = []
    for entry in value.get("conversations") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        conversations.append({
            "id": entry["id"][:64],
            "title": str(entry.get("title") or "Conversation")[:TITLE_CHARS],
            "updated": float(entry.get("updated") or 0) if _is_number(entry.get("updated")) else 0.0,
            "messages": sanitize_messages(entry.get("messages"), roots),
        })  # fmt: skip
    current = value.get("current") if isinstance(value.get("current"), str) else None
    return {"current": current, "conversations": conversations[:MAX_CONVERSATIONS]}


def sanitize_messages(messages: Any, allowed_roots: list[str]) -> list[dict[str, Any]]:
    """Chat messages safe to hand back to the Chatbot.

    Args:
        messages: Messages as stored by the browser (or as the Chatbot sends them).
        allowed_roots: Real paths of folders whose files may be shown.
    """
    clean: list[dict[str, Any]] = []
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
            continue
        for content in _contents(message.get("content"), allowed_roots):
            item: dict[str, Any] = {"role": message["role"], "content": content}
            meta = _clean_meta(message.get("metadata"))
            if meta:
                item["metadata"] = meta
            clean.append(item)
    return clean[-MAX_MESSAGES:]


def _contents(content: Any, roots: list[str]) -> list[Any]:
    """Split a content into displayable pieces: text, or a file dict inside `roots`."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        texts = [
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        ]
        files = [b for b in content if isinstance(b, dict) and b.get("type") != "text"]
        out: list[Any] = ["\n".join(str(t) for t in texts)] if texts else []
        for block in files:
            out += _contents(block, roots)
        return out
    if isinstance(content, dict):
        file = content.get("file") if isinstance(content.get("file"), dict) else content
        path = file.get("path")
        if isinstance(path, str) and _inside(path, roots):
            entry = {"path": path}
            if isinstance(file.get("mime_type"), str):
                entry["mime_type"] = file["mime_type"]
            return [entry]
        name = file.get("orig_name") or (os.path.basename(path) if isinstance(path, str) else "")
        return [f"📎 {name} (no longer available)"] if name else []
    return []


def _inside(path: str, roots: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root + os.sep) for root in roots) and os.path.isfile(
        real
    )


def _clean_meta(meta: Any) -> dict[str, Any]:
    if not isinstance(meta, dict):
        return {}
    clean = {k: v for k, v in meta.items() if k in _META_KEYS and isinstance(v, _META_KEYS[k])}
    if clean.get("status") not in (None, "done"):
        clean["status"] = "done"  # a restored step is never still running
    return clean


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def title_of(messages: list[dict[str, Any]]) -> str:
    """A short title: the first thing the user wrote.

    Args:
        messages: The conversation's messages.
    """
    for message in messages:
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            text = " ".join(message["content"].split())
            if text:
                return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"
    return "New conversation"


def find(store: dict[str, Any], conversation_id: str | None) -> dict[str, Any] | None:
    """The stored conversation with this id, or None.

    Args:
        store: A normalized store.
        conversation_id: Which conversation.
    """
    return next((c for c in store["conversations"] if c["id"] == conversation_id), None)


def upsert(
    store: dict[str, Any], conversation_id: str, messages: list[dict[str, Any]], now: float
) -> dict[str, Any]:
    """A new store with this conversation saved (most recent first) and made current.

    Args:
        store: A normalized store.
        conversation_id: Which conversation.
        messages: Its messages (already sanitized).
        now: Timestamp for ordering.
    """
    others = [c for c in store["conversations"] if c["id"] != conversation_id]
    entry = {"id": conversation_id, "title": title_of(messages), "updated": now,
             "messages": messages[-MAX_MESSAGES:]}  # fmt: skip
    conversations = [entry, *others][:MAX_CONVERSATIONS]
    while len(conversations) > 1 and len(json.dumps(conversations, default=str)) > MAX_STORE_CHARS:
        conversations.pop()
    return {"current": conversation_id, "conversations": conversations}


def rekey(store: dict[str, Any], old_id: str, new_id: str) -> dict[str, Any]:
    """A new store where the conversation `old_id` is now known as `new_id`.

    Args:
        store: A normalized store.
        old_id: The id whose agent is gone.
        new_id: The id of the fresh agent that continues it.
    """
    conversations = [dict(c, id=new_id) if c["id"] == old_id else c for c in store["conversations"]]
    current = new_id if store.get("current") == old_id else store.get("current")
    return {"current": current, "conversations": conversations}


def choices(store: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, id) pairs for the side list, most recent first.

    Args:
        store: A normalized store.
    """
    return [(c["title"], c["id"]) for c in store["conversations"]]
