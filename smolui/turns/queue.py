"""The turn queue: at most `slots` turns run at once, the rest wait in order and see their place.

Gradio's own queue would hold a waiting turn before any of our code runs, so the page could
not say where it stands and Stop could not take it out. Here a turn joins this queue from its
handler: it learns its position and an estimate of the wait while it waits, leaves the queue
when the visitor presses Stop, and holds a slot until its agent really stops. One user runs at
most `user_slots` turns at once (across their conversations); beyond it the turn is refused.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter, deque
from collections.abc import Callable

AVERAGE_WEIGHT = 0.2  # how much each finished turn moves the average turn duration


class QueueRefusal(RuntimeError):
    """The turn may not wait: the queue is full, or the user runs all the turns they may."""


class TurnSlot:
    """A place in the queue, then a running slot; `release` it once the turn has ended.

    Made by `TurnQueue.join`.
    """

    def __init__(self, queue: TurnQueue, user: str):
        self.queue = queue
        self.user = user
        self.admitted = False
        self.left = False
        self.started_at: float | None = None

    @property
    def position(self) -> int:
        """1 for the next turn to start; 0 once admitted or left."""
        return self.queue.position(self)

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for a running slot; True once admitted.

        Args:
            timeout: Seconds to wait.
        """
        return self.queue.wait(self, timeout)

    def leave(self) -> None:
        """Leave the queue (Stop while waiting), or give back the running slot."""
        self.queue.release(self)

    release = leave


class TurnQueue:
    """A fair (first come, first served) queue in front of a fixed number of running turns.

    Args:
        slots: Turns that may run at once.
        max_waiting: Turns that may wait; more are refused.
        user_slots: Turns one user may run or wait with at once (0: no limit).
        clock: Monotonic seconds (injectable for tests).
    """

    def __init__(
        self,
        slots: int,
        max_waiting: int = 32,
        user_slots: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ):
        if slots < 1:
            raise ValueError(f"a turn queue needs at least one slot, not {slots}")
        self.slots, self.max_waiting, self.user_slots = slots, max_waiting, user_slots
        self.clock = clock
        self._waiting: deque[TurnSlot] = deque()
        self._running: list[TurnSlot] = []
        self._per_user: Counter[str] = Counter()
        self._changed = threading.Condition()
        self.average_turn_s: float | None = None

    @property
    def waiting(self) -> int:
        """Turns waiting now (the queue length)."""
        with self._changed:
            return len(self._waiting)

    @property
    def running(self) -> int:
        """Turns holding a running slot now."""
        with self._changed:
            return len(self._running)

    def join(self, user: str) -> TurnSlot:
        """Join the queue (admitted at once when a slot is free and nobody waits).

        Args:
            user: Who the turn belongs to (a signed-in user or a browser key).

        Raises:
            QueueRefusal: The user already runs `user_slots` turns, or the queue is full.
        """
        with self._changed:
            if self.user_slots and self._per_user[user] >= self.user_slots:
                many = "turn" if self.user_slots == 1 else "turns"
                raise QueueRefusal(
                    f"Limit reached: you already have {self._per_user[user]} {many} running or "
                    f"waiting, and each user may run {self.user_slots} at a time. Wait for it to "
                    "finish or stop it, then send this again. Nothing was run."
                )
            if len(self._waiting) >= self.max_waiting and len(self._running) >= self.slots:
                raise QueueRefusal(
                    f"The server is full: {len(self._running)} turns are running and "
                    f"{len(self._waiting)} are waiting. Try again in a minute. Nothing was run."
                )
            slot = TurnSlot(self, user)
            self._per_user[user] += 1
            self._waiting.append(slot)
            self._admit()
            return slot

    def position(self, slot: TurnSlot) -> int:
        """`slot`'s place in the queue (1: next), or 0 when it runs or left.

        Args:
            slot: A slot from `join`.
        """
        with self._changed:
            return self._waiting.index(slot) + 1 if slot in self._waiting else 0

    def wait(self, slot: TurnSlot, timeout: float) -> bool:
        """Wait up to `timeout` seconds for `slot` to be admitted; True once it is.

        Args:
            slot: A slot from `join`.
            timeout: Seconds to wait.
        """
        with self._changed:
            self._changed.wait_for(lambda: slot.admitted or slot.left, timeout)
            return slot.admitted and not slot.left

    def release(self, slot: TurnSlot) -> None:
        """Take `slot` out: from the queue while waiting, or give its running slot back.

        Args:
            slot: A slot from `join`; releasing twice does nothing.
        """
        with self._changed:
            if slot.left:
                return
            slot.left = True
            self._per_user[slot.user] -= 1
            if self._per_user[slot.user] <= 0:
                del self._per_user[slot.user]
            if slot in self._waiting:
                self._waiting.remove(slot)
            elif slot in self._running:
                self._running.remove(slot)
                started = slot.started_at if slot.started_at is not None else self.clock()
                self._learn(self.clock() - started)
            self._admit()

    def estimated_wait_s(self, position: int) -> float | None:
        """About how long the turn at `position` waits, from recent turn durations (None
        before any turn has finished).

        Args:
            position: A place in the queue (1: next).
        """
        if self.average_turn_s is None or position <= 0:
            return None
        return self.average_turn_s * math.ceil(position / self.slots)

    def _admit(self) -> None:
        """Move waiting turns into free running slots, in order (holding the lock)."""
        while self._waiting and len(self._running) < self.slots:
            slot = self._waiting.popleft()
            slot.admitted, slot.started_at = True, self.clock()
            self._running.append(slot)
        self._changed.notify_all()

    def _learn(self, seconds: float) -> None:
        if self.average_turn_s is None:
            self.average_turn_s = seconds
        else:
            self.average_turn_s += AVERAGE_WEIGHT * (seconds - self.average_turn_s)


def queue_message(position: int, waiting: int, wait_s: float | None) -> str:
    """What the page says while a turn waits.

    Args:
        position: The turn's place (1: next).
        waiting: Turns waiting in all.
        wait_s: The estimated wait, or None when unknown.
    """
    estimate = f" About {_rough(wait_s)} to wait." if wait_s is not None else ""
    return (
        f"Every agent is busy. You are number {position} of {waiting} in the queue.{estimate} "
        "Your message starts by itself; Stop leaves the queue."
    )


def _rough(seconds: float) -> str:
    if seconds < 60:
        return f"{max(5, round(seconds / 5) * 5)} s"
    return f"{round(seconds / 60)} min"
