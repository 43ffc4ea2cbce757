"""What the code prints, shown while it runs: throttled on both sides of the pipe.

Worker side: `LiveLog` is the step's log that also keeps the tail of what was printed;
the worker's `LiveFlusher` thread sends that tail as an `output` frame at most every
`SEND_INTERVAL_S`. Each frame holds the output so far (its last
`LIVE_CHARS` characters), not a delta, so a frame lost to throttling loses nothing.
Host side: `LiveRelay` hands frames to the caller's callback, at most one per
`RELAY_GAP_S`, keeping the newest one back until its turn: the worker is untrusted, and
a flood of frames must not flood the page. Standard library only: the worker imports it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from agents.executors.python_runner import BoundedLog

logger = logging.getLogger(__name__)

LIVE_CHARS = 2_000  # the tail of the output sent while the code runs
SEND_INTERVAL_S = 0.3  # the worker sends at most this often
RELAY_GAP_S = 0.2  # the host hands on at most this often

OutputCallback = Callable[[str], None]


class LiveLog(BoundedLog):
    """The step's log (see `BoundedLog`), which also keeps the tail of what is written, for
    the flusher to send.

    Args:
        limit: The log's cap, as `BoundedLog`.
    """

    def __init__(self, limit: int):
        super().__init__(limit)
        self._live_lock = threading.Lock()
        self._pieces: deque[str] = deque()  # the latest writes, LIVE_CHARS or a bit more
        self._chars = 0
        self._pending = False

    def write(self, text: str) -> int:
        size = super().write(text)
        piece = text[-LIVE_CHARS:]
        with self._live_lock:  # cheap: a print loop pays for this on every line
            self._pieces.append(piece)
            self._chars += len(piece)
            while self._chars - len(self._pieces[0]) >= LIVE_CHARS:
                self._chars -= len(self._pieces.popleft())
            self._pending = True
        return size

    def take(self) -> str | None:
        """The tail, if something was written since the last `take`; None otherwise."""
        with self._live_lock:
            if not self._pending:
                return None
            self._pending = False
            return "".join(self._pieces)[-LIVE_CHARS:]

    def unsent(self) -> None:
        """Mark the tail as still to send (the channel was busy when it was taken)."""
        with self._live_lock:
            self._pending = True


class LiveFlusher:
    """One thread per worker, started by its first live step, that sends the running step's
    tail every `SEND_INTERVAL_S`. It outlives the step (a thread per step cost about 0.2 ms
    each); between requests the host freezes the worker, so it costs nothing then.

    Args:
        send: Sends one log's tail; returns False when it could not send now.
    """

    def __init__(self, send: Callable[[LiveLog, str], bool]):
        self.send = send
        self.log: LiveLog | None = None  # the running step's, while one runs live
        self.ident: int | None = None  # the thread's, once started
        self._thread: threading.Thread | None = None

    def follow(self, log: LiveLog | None) -> None:
        """Send this log's tail from now on (None: nothing to send); starts the thread once.

        Args:
            log: The running step's log, or None when the step ended.
        """
        self.log = log
        if log is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="live-output", daemon=True)
        try:
            self._thread.start()
        except RuntimeError:  # no thread left (the code used them all): output at the end
            logger.debug("live output thread could not start", exc_info=True)
            self._thread = None
        else:
            self.ident = self._thread.ident

    def _run(self) -> None:
        while True:
            time.sleep(SEND_INTERVAL_S)
            log = self.log
            tail = log.take() if log is not None else None
            if log is not None and tail is not None and not self.send(log, tail):
                log.unsent()


class LiveRelay:
    """Hands the worker's `output` frames to a callback, throttled (host side).

    Args:
        callback: Receives the output so far; errors in it are logged, never raised.
    """

    def __init__(self, callback: OutputCallback):
        self.callback = callback
        self._pending: str | None = None
        self._last = float("-inf")

    def offer(self, message: dict[str, Any]) -> None:
        """Take one `output` frame (untrusted): its text is kept for the next hand-off."""
        text = message.get("text")
        if isinstance(text, str):
            self._pending = text[-LIVE_CHARS:]
            self.due()

    def due(self) -> None:
        """Hand on the pending text if the last hand-off was long enough ago."""
        if time.monotonic() - self._last >= RELAY_GAP_S:
            self.flush()

    def flush(self) -> None:
        """Hand on the pending text now (before a tool call, which may take long)."""
        text, self._pending = self._pending, None
        if text is None:
            return
        self._last = time.monotonic()
        try:
            self.callback(text)
        except Exception:  # a consumer's bug must not cost the worker
            logger.exception("the live output callback failed")
