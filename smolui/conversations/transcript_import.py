"""Conversations an older version kept in the browser, moved into the conversation store.

Before conversations lived on the server, the page kept their transcripts in its browser
state: `{"current": id, "conversations": [{"id", "title", "updated", "messages"}]}`. The first
time such a page opens, each transcript becomes a stored conversation of a new owner key (the
messages cleaned as any stored chat is); the browser then keeps only the key. The agent's
memory was never kept in the browser, so the chat of an imported conversation says that the
agent does not remember it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from smolui.conversations.keeper import ConversationKeeper
from smolui.render.messages import render_notice
from smolui.sessions import new_conversation_id

logger = logging.getLogger(__name__)

# What one browser state may bring in: a browser state is whatever a client sends, so its
# size is no measure of what an older version really kept.
MAX_IMPORTED = 100  # conversations taken from one browser
MAX_IMPORTED_CHARS = 1_000_000  # characters of one conversation's messages (as JSON)
MAX_IMPORT_TOTAL_CHARS = 5_000_000  # characters of every conversation taken together
IMPORTED_NOTE = (
    "This conversation was moved from this browser to the server. The agent does not "
    "remember it; repeat what it needs to know."
)


def has_browser_transcripts(state: Any) -> bool:
    """Whether the browser state is an older version's, holding transcripts.

    Args:
        state: The BrowserState value.
    """
    return (
        isinstance(state, dict)
        and not state.get("owner")
        and isinstance(state.get("conversations"), list)
    )


def import_transcripts(keeper: ConversationKeeper, owner: str, state: dict[str, Any]) -> Any:
    """Store the transcripts of an older browser state as conversations of `owner`.

    Each gets a new id (the browser's ids are not trusted). Returns the new id of the
    conversation the browser showed, or None.

    Args:
        keeper: Saves conversations.
        owner: The owner key the browser gets from now on.
        state: The older browser state (`has_browser_transcripts`).
    """
    opened, imported, total, skipped = None, 0, 0, 0
    entries = state["conversations"]
    for entry in entries[:MAX_IMPORTED]:
        if not isinstance(entry, dict):
            continue
        size = _size(entry.get("messages"))
        if size > MAX_IMPORTED_CHARS or total + size > MAX_IMPORT_TOTAL_CHARS:
            skipped += 1
            continue
        total += size
        chat = keeper.clean(entry.get("messages"))
        if not chat:
            continue
        conversation_id = new_conversation_id()
        chat.append(render_notice(IMPORTED_NOTE, "ℹ️"))
        if not keeper.store_chat(owner, conversation_id, chat, str(entry.get("title") or "")):
            continue
        imported += 1
        if entry.get("id") is not None and entry.get("id") == state.get("current"):
            opened = conversation_id
    if imported:
        logger.info("moved %d conversations from a browser into the store", imported)
    left = skipped + max(0, len(entries) - MAX_IMPORTED)
    if left:
        logger.warning(
            "left %d conversations of a browser state out of the store: past %d conversations, "
            "%d characters each or %d in all",
            left,
            MAX_IMPORTED,
            MAX_IMPORTED_CHARS,
            MAX_IMPORT_TOTAL_CHARS,
        )
    return opened


def _size(messages: Any) -> int:
    """Characters of a transcript's messages as JSON (what storing them would take, about)."""
    try:
        return len(json.dumps(messages, default=str))
    except (
        TypeError,
        ValueError,
        RecursionError,
    ):  # e.g. nested too deep: not something an older page kept
        return MAX_IMPORTED_CHARS + 1
