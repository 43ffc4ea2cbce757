"""A turn whose process died (kill -9, a crash) leaves its conversation stored as "running",
with the user's message and no answer. This is the one rule, for the page and the API alike,
that tells such a turn from one still running, and marks it in the stored chat once.

The store says only that the turn was "running" and when that was written (`updated`); a
running turn writes no heartbeat. So:

- a turn running in this process is never interrupted;
- on SQLite the store belongs to this one process (replicas share PostgreSQL), so a running
  state with no live turn here is a turn that died with an earlier process;
- on a shared database another replica may be running it right now: it counts as interrupted
  only once its running state is older than `STALE_AFTER_S`, longer than a turn runs. A turn
  killed moments ago is then not marked yet; a live one is never marked wrongly.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from smolui.render.messages import Message, render_notice

if TYPE_CHECKING:
    from smolui.store import StoredConversation

INTERRUPTED_NOTE = (
    "The last message was interrupted before it finished (the server restarted); "
    "send it again to continue."
)
STALE_AFTER_S = 900.0  # no turn runs this long (steps x model calls): its process is gone


def is_interrupted(
    record: StoredConversation,
    live: Any,
    shared: bool,
    now: datetime | None = None,
    stale_after_s: float = STALE_AFTER_S,
) -> bool:
    """Whether the stored conversation's last turn died with the process that ran it.

    Args:
        record: The stored conversation.
        live: Its live `Session` in this process, or None.
        shared: Whether other processes use the same database (not SQLite).
        now: The time to judge by (default: now).
        stale_after_s: On a shared database, how old a running state must be to be dead.
    """
    if record.turn_state != "running":
        return False
    turn = live.live_turn if live is not None else None
    if turn is not None and not turn.done:
        return False
    if not shared:
        return True
    age = ((now or datetime.now(UTC)) - record.updated).total_seconds()
    return age > stale_after_s


def interrupted_note() -> Message:
    """The note that says the last message was never answered."""
    return render_notice(INTERRUPTED_NOTE, "ℹ️")


def with_interrupted_note(chat: list[Message], interrupted: bool) -> list[Message]:
    """`chat` with the interrupted note at its end when `interrupted`, and only once.

    Args:
        chat: The stored chat.
        interrupted: What `is_interrupted` said.
    """
    note = interrupted_note()
    if not interrupted or (chat and chat[-1] == note):
        return chat
    return [*chat, note]


def shared_store(store: Any) -> bool:
    """Whether other processes may write this store's database (anything but SQLite).

    Args:
        store: A `ConversationStore`.
    """
    return store.engine.dialect.name != "sqlite"
