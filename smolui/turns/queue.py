"""The turn queue: at most `slots` turns run at once, the rest wait in order and see their place.

Gradio's own queue would hold a waiting turn before any of our code runs, so the page could
not say where it stands and Stop could not take it out. Here a turn joins this queue from its
handler: it learns its position and an estimate of the wait while it waits, leaves the queue
when the visitor presses Stop, and holds a slot until its agent really stops. One user runs at
most `user_slots` turns at once (across their conversations); beyond it the turn is refused,
saying which of their conversations holds the slot (`UserLimitReached.message`).
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

AVERAGE_WEIGHT = 0.2  # how much each finished turn moves the average turn duration


class QueueRefusal(RuntimeError):
    """The turn may not wait: the queue is full, or the user runs all the turns they may."""


@dataclass(frozen=True)
class HeldSlot:
    """One of the user's turns holding a slot: its conversation, and whether it still waits
    in the queue (False: it runs).

    Args:
        conversation: The conversation's id ("" when the caller gave none).
        queued: It waits for a running slot.
    """

    conversation: str
    queued: bool


@dataclass(frozen=True)
class Holder:
    """A conversation holding one of the user's slots, as the person knows it.

    Args:
        title: Its title, as the conversation list shows it.
        awaits_approval: Its turn waits for the person to answer an action, not for the agent.
    """

    title: str
    awaits_approval: bool = False


# What the caller knows of a conversation id: its `Holder`, or None when it may not say
# (not the person's own, e.g. another browser at the same address, or unknown).
Describe = Callable[[str], Holder | None]


class UserLimitReached(QueueRefusal):
    """The user already runs or waits with `user_slots` turns; `message` says where.

    Args:
        held: The user's turns holding slots now.
        user_slots: Turns one user may run at once.
    """

    def __init__(self, held: Sequence[HeldSlot], user_slots: int):
        self.held, self.user_slots = tuple(held), user_slots
        super().__init__(self.message())

    def message(self, describe: Describe | None = None) -> str:
        """The refusal in words, naming each conversation `describe` knows.

        Args:
            describe: Names a conversation id for the person (None: name none).
        """
        where = [_holding(slot, describe(slot.conversation) if describe and slot.conversation
                          else None) for slot in self.held]  # fmt: skip
        return (
            f"Limit reached: each user may run {self.user_slots} at a time, and "
            f"{'; '.join(where) or 'another of your turns holds it'}. Then send this again. "
            "Nothing was run."
        )


def _holding(slot: HeldSlot, holder: Holder | None) -> str:
    """What holds one slot and how to free it, in the person's words."""
    if holder is None:
        state = "waits in the queue" if slot.queued else "is running"
        return f"a turn in another conversation {state}: wait for it to finish or stop it"
    title = f"“{holder.title}”"
    if holder.awaits_approval:
        return (
            f"{title} is waiting for your approval, not working: open it and run or skip the "
            "action shown there, or stop that turn"
        )
    if slot.queued:
        return f"your message in {title} waits in the queue: wait for it, or open it and stop it"
    return f"your turn in {title} is still running: wait for it to finish, or open it and stop it"


class TurnSlot:
    """A place in the queue, then a running slot; `release` it once the turn has ended.

    Made by `TurnQueue.join`.
    """

    def __init__(self, queue: TurnQueue, user: str, conversation: str = ""):
        self.queue = queue
        self.user = user
        self.conversation = conversation
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

    def join(self, user: str, conversation: str = "") -> TurnSlot:
        """Join the queue (admitted at once when a slot is free and nobody waits).

        Args:
            user: Who the turn belongs to (a signed-in user or a browser key).
            conversation: The turn's conversation (named when another turn of the user's
                is refused for it).

        Raises:
            UserLimitReached: The user already runs or waits with `user_slots` turns.
            QueueRefusal: The queue is full.
        """
        with self._changed:
            if self.user_slots and self._per_user[user] >= self.user_slots:
                held = [HeldSlot(slot.conversation, slot in self._waiting)
                        for slot in [*self._running, *self._waiting] if slot.user == user]  # fmt: skip
                raise UserLimitReached(held, self.user_slots)
            if len(self._waiting) >= self.max_waiting and len(self._running) >= self.slots:
                raise QueueRefusal(
                    f"The server is full: {len(self._running)} turns are running and "
                    f"{len(self._waiting)} are waiting. Try again in a minute. Nothing was run."
                )
            slot = TurnSlot(self, user, conversation)
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
