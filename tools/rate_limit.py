"""`RateLimiter`: space out calls to an outside service (a search engine, a search API)."""

from __future__ import annotations

import threading
import time


class RateLimiter:
    """Makes callers wait so that calls start at most `per_second` times a second.

    Thread-safe: one limiter may be shared by every thread that uses the same tool.

    Args:
        per_second: Most calls per second; None (or 0) for no limit.
    """

    def __init__(self, per_second: float | None):
        self.min_interval = 1.0 / per_second if per_second else 0.0
        self._last = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        """Block until the next call may start, and count it as started."""
        with self._lock:  # held while sleeping, so waiting callers go one at a time
            delay = self._last + self.min_interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self._last = time.monotonic()
