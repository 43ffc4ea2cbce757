"""Stop pressed after the page showed a message but before its turn claimed the conversation.

Sending takes two requests (`echo`, then the queued turn): on a busy server the turn may
reach the conversation a moment after the page already shows the message and enables Stop.
A Stop in that moment finds nothing running; without this it would be dropped and the turn
would then run anyway. So the message's turn is remembered from `echo` until it claims the
conversation, and a Stop meanwhile is kept for it: the turn then stops before it starts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from smolui.turns.pending import PendingTurn

KEEP_S = 3600.0  # a turn that never arrived (its page closed) is forgotten after this
MAX_COMING = 4096  # past this many conversations, the oldest turn on its way is forgotten


class StopsBeforeStart:
    """The turns on their way to their conversation, one per conversation (its latest).

    Args:
        keep_s: Seconds a turn that never arrives is remembered.
        clock: Monotonic seconds.
    """

    def __init__(self, keep_s: float = KEEP_S, clock: Callable[[], float] = time.monotonic):
        self.keep_s = keep_s
        self.clock = clock
        self._lock = threading.Lock()
        self._coming: dict[str, tuple[str, float]] = {}  # conversation id -> (token, since)
        self._stopped: dict[str, float] = {}  # tokens of coming turns Stop was pressed for

    def expect(self, conversation_id: str | None, pending: PendingTurn | None) -> None:
        """The page shows `pending`'s message; its turn is on its way.

        Args:
            conversation_id: The page's conversation id.
            pending: The request `echo` made (a token marks a message held for its turn).
        """
        if not conversation_id or pending is None or not pending.token:
            return
        now = self.clock()
        with self._lock:
            self._forget_old(now)
            self._coming.pop(conversation_id, None)  # re-added as the newest
            self._coming[conversation_id] = (pending.token, now)
            while len(self._coming) > MAX_COMING:  # dicts keep insertion order: oldest first
                token, _ = self._coming.pop(next(iter(self._coming)))
                self._stopped.pop(token, None)

    def stop(self, conversation_id: str | None) -> bool:
        """Stop the turn on its way to this conversation, if one is.

        Args:
            conversation_id: The page's conversation id.

        Returns:
            Whether a turn was on its way (it will stop as soon as it arrives).
        """
        with self._lock:
            coming = self._coming.get(conversation_id or "")
            if coming is None:
                return False
            self._stopped[coming[0]] = self.clock()
            return True

    def arrived(self, conversation_id: str | None, pending: PendingTurn) -> bool:
        """`pending`'s turn reached its conversation: it is no longer on its way.

        Args:
            conversation_id: The page's conversation id.
            pending: The request the turn runs.

        Returns:
            Whether Stop was pressed for it meanwhile (it must not run).
        """
        token = pending.token
        if not token:
            return False
        with self._lock:
            coming = self._coming.get(conversation_id or "")
            if coming is not None and coming[0] == token:
                del self._coming[conversation_id or ""]
            return self._stopped.pop(token, None) is not None

    def _forget_old(self, now: float) -> None:
        oldest = now - self.keep_s
        for conversation_id, (_, since) in list(self._coming.items()):
            if since < oldest:
                del self._coming[conversation_id]
        for token, since in list(self._stopped.items()):
            if since < oldest:
                del self._stopped[token]
