"""Chat transcripts made safe to show again: what the conversation store keeps and gives back.

A stored chat is cleaned both ways: unknown shapes are dropped, steps never come back as still
running, and file paths outside the folders the app serves are replaced by a short note (a
damaged or forged row must never make the server read a file).
"""

from __future__ import annotations

import math
import os
from typing import Any

from smolui.render.durations import format_duration

MAX_MESSAGES = 4000  # a very long chat keeps its latest messages
_META_KEYS = {
    "title": str,
    "id": str,
    "parent_id": str,
    "log": str,
    "status": str,
    "duration": (int, float),
}


def sanitize_messages(messages: Any, allowed_roots: list[str]) -> list[dict[str, Any]]:
    """Chat messages safe to hand back to the Chatbot.

    Args:
        messages: Messages as stored (or as the Chatbot sends them).
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
        return [f"Attached file: `{name}` (no longer available)"] if name else []
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
    duration = clean.pop("duration", None)  # saved before a step's time moved into its log
    if duration is not None and math.isfinite(duration):
        parts = (clean.get("log", ""), format_duration(duration))
        clean["log"] = " · ".join(part for part in parts if part)
    return clean
