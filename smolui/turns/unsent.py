"""Messages a page has shown but whose turn has not reached the server yet.

Sending a message takes two requests: the page shows it at once (`echo`, outside the queue),
then the turn joins gradio's queue. A reload in between drops the second (never sent, or
taken out of the queue when the old page's connection closes), and the reloaded page would
show the stored chat without the message: what the user typed would be gone. So `echo`
holds the message here, under the conversation's id, until its turn starts; a page that
opens the conversation while it is still held gets it back in its message box.

Exactly one side gets a held message: the turn (`take`) or a reopened page (`give_back`).
A turn that arrives after its message went back to a page does not run it.

`echo` runs outside the queue, so what is held is bounded: only ids no longer than a
conversation id's key column are held, for `keep_s` seconds, and at most `most` of them (then the oldest is forgotten:
its turn still runs, only a reload before it starts no longer gets it back).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from smolui.turns.pending import PendingTurn

logger = logging.getLogger(__name__)

KEEP_S = 3600.0  # a message held longer (its page closed, never reopened) is forgotten
MAX_ID_CHARS = 64  # as the store's conversation ids: a longer one names no conversation
MOST_HELD = 4096  # held messages (and notes that one went back), past it the oldest goes


class UnsentMessages:
    """The held messages, by conversation id (one per conversation: its latest).

    Args:
        keep_s: Seconds a held message (or the note that it went back) is kept.
        clock: Monotonic seconds.
        most: Most held messages, and most notes that one went back, at once.
    """

    def __init__(
        self,
        keep_s: float = KEEP_S,
        clock: Callable[[], float] = time.monotonic,
        most: int = MOST_HELD,
    ):
        self.keep_s = keep_s
        self.clock = clock
        self.most = most
        self._lock = threading.Lock()
        self._held: dict[str, tuple[str, PendingTurn, float]] = {}
        self._given_back: dict[str, float] = {}  # tokens of messages that went back to a page

    def hold(self, conversation_id: str | None, message: PendingTurn) -> PendingTurn:
        """Hold a message the page just showed until its turn starts.

        Args:
            conversation_id: The page's conversation id (None: nothing is held).
            message: The message the page sent.

        Returns:
            The request to hand to the turn: `message` with its token.
        """
        if not conversation_id or len(conversation_id) > MAX_ID_CHARS:  # none, or forged
            return message
        token = secrets.token_hex(8)
        now = self.clock()
        with self._lock:
            self._forget_old(now)
            self._held.pop(conversation_id, None)  # re-held: now the newest
            self._held[conversation_id] = (token, message, now)
            _keep_newest(self._held, self.most)
        return message.held(token)

    def __len__(self) -> int:
        """How many messages are held now."""
        return len(self._held)

    def take(self, conversation_id: str | None, pending: PendingTurn) -> bool:
        """The turn of `pending` starts: it is no longer held.

        Args:
            conversation_id: The page's conversation id.
            pending: The request the turn runs.

        Returns:
            False when the message went back to a reopened page meanwhile (the turn must not
            run it); True otherwise, also for requests that were never held (retries, edits).
        """
        token = pending.token
        if not token:
            return True
        with self._lock:
            held = self._held.get(conversation_id or "")
            if held is not None and held[0] == token:
                del self._held[conversation_id or ""]
            return self._given_back.pop(token, None) is None

    def give_back(self, conversation_id: str | None) -> dict[str, Any] | None:
        """The message held for this conversation, for a page that opens it; it is then no
        longer held, and its turn will not run it.

        Args:
            conversation_id: The conversation the page opened.

        Returns:
            The message as the message box's value (`{"text", "files"}`), or None when
            none is held.
        """
        now = self.clock()
        with self._lock:
            self._forget_old(now)
            held = self._held.pop(conversation_id or "", None)
            if held is None:
                return None
            token, message, _ = held
            self._given_back[token] = now
            _keep_newest(self._given_back, self.most)
        return message.as_box_value()

    def _forget_old(self, now: float) -> None:
        oldest = now - self.keep_s
        for conversation_id, (_, _, since) in list(self._held.items()):
            if since < oldest:
                del self._held[conversation_id]
        for token, since in list(self._given_back.items()):
            if since < oldest:
                del self._given_back[token]


def _keep_newest(entries: dict, most: int) -> None:
    """Drop the oldest entries (the first inserted) beyond `most`."""
    while len(entries) > most:
        del entries[next(iter(entries))]
        logger.debug("forgot the oldest held message: more than %d are held", most)
