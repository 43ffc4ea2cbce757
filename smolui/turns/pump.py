"""Run an agent's event stream in a thread, so the UI can stop at once and batch updates.

Gradio closes a sync generator only at its next `yield`, and an agent may sit in a model
call or a code run for a long time. Pumping the stream in a thread lets the turn handler
wake up every few milliseconds: it renders whatever events arrived since its last update
(one page update per batch, not per token) and notices a Stop click immediately, while the
agent stops at its next step boundary.
"""

from __future__ import annotations

import contextvars
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

logger = logging.getLogger(__name__)

_END = object()


class EventPump:
    """Iterates `events()` in a daemon thread and hands the events over in batches.

    Args:
        events: Builds the event iterator (called in the pump thread).
        on_done: Called in the pump thread once the stream has ended, however it ended.
    """

    def __init__(
        self, events: Callable[[], Iterable[Any]], on_done: Callable[[], None] | None = None
    ):
        self._events = events
        self._on_done = on_done
        self._queue: queue.Queue[Any] = queue.Queue()
        self.error: BaseException | None = None
        self.finished = threading.Event()
        # The caller's context variables (tracing context, conversation attributes) go with
        # the stream into the thread, as if it were iterated where it was made.
        context = contextvars.copy_context()
        self._thread = threading.Thread(
            target=context.run, args=(self._run,), name="smolui-turn", daemon=True
        )

    def start(self) -> EventPump:
        """Start iterating in the pump thread; returns the pump."""
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            for event in self._events():
                self._queue.put(event)
        except BaseException as error:  # handed to the UI thread, which renders it
            self.error = error
        finally:
            self._queue.put(_END)
            try:
                if self._on_done is not None:
                    self._on_done()
            finally:
                self.finished.set()

    def batches(
        self, stop: threading.Event, poll_s: float = 0.05, min_interval_s: float = 0.0
    ) -> Iterator[list[Any]]:
        """Yield lists of events as they arrive; end when the stream ends or `stop` is set
        (events that arrive once it is set are not handed over).

        The last batch of a stream that ended comes after `on_done` has run: whoever sees a
        turn end (a page enabling its message box) finds its conversation free.

        Args:
            stop: Set by the Stop button; ends the iteration at once.
            poll_s: How often to look at `stop` while no event arrives.
            min_interval_s: Least time between two batches: token deltas arriving faster
                are gathered into one page update (fewer bytes, less browser work).
        """
        pending: list[Any] = []
        last = 0.0
        while not stop.is_set():
            wait = poll_s
            if pending:
                wait = min(poll_s, max(0.0, last + min_interval_s - time.monotonic()))
            before = len(pending)
            ended = self._collect(pending, wait)
            if stop.is_set():
                # What arrived with the Stop may be the stopped run's own ending (its code
                # killed, its step failed): the page stopped before it, so it is not shown.
                del pending[before:]
                if pending:
                    yield pending
                return
            if ended:  # the end is handed over once `on_done` has run (the claim released)
                self.finished.wait()
            if pending and (ended or time.monotonic() - last >= min_interval_s):
                yield pending
                pending = []
                last = time.monotonic()
            if ended:
                return

    def _collect(self, pending: list[Any], wait: float) -> bool:
        """Move queued events into `pending` (waiting up to `wait` for the first); True at the end."""
        try:
            item = self._queue.get(timeout=wait) if wait > 0 else self._queue.get_nowait()
        except queue.Empty:
            return False
        while item is not _END:
            pending.append(item)
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return False
        return True

    @property
    def ended(self) -> bool:
        """True once the agent's stream has ended (the thread may still be cleaning up)."""
        return self.finished.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the pump thread to finish. Returns whether it did.

        Args:
            timeout: Seconds to wait (None: forever).
        """
        return self.finished.wait(timeout)
