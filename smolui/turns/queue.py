"""The turn queue: at most `slots` turns run at once, the rest wait in order and see their place.

Gradio's own queue would hold a waiting turn before any of our code runs, so the page could
not say where it stands and Stop could not take it out. Here a turn joins this queue from its
handler: it learns its position and an estimate of the wait while it waits, leaves the queue
when the visitor presses Stop, and holds a slot until its agent really stops. One user runs at
most `user_slots` turns at once (across their conversations); beyond it the turn is refused,
saying which of their conversations holds the slot (`UserLimitReached.message`). A turn that
waits for its person to approve an action steps aside (`TurnSlot.step_aside`): a person may
take minutes or never come back, and nobody else at their address should be locked out
meanwhile; once answered it takes a slot back (`TurnSlot.take_back`), first in line.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

AVERAGE_WEIGHT = 0.2  # how much each finished turn moves the average turn duration
SEND_AGAIN = "Then send this again. Nothing was run."  # what a refused message's sender does


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

    def __init__(self, held: Sequence[HeldSlot], user_slots: int, shared: bool = False):
        self.held, self.user_slots, self.shared = tuple(held), user_slots, shared
        super().__init__(self.message())

    def message(self, describe: Describe | None = None, then: str = SEND_AGAIN) -> str:
        """The refusal in words, naming each conversation `describe` knows.

        Args:
            describe: Names a conversation id for the person (None: name none).
            then: What the person does once a slot is free (a refused answer to an action
                is answered again, not sent).
        """
        where = [_holding(slot, describe(slot.conversation) if describe and slot.conversation
                          else None, self.shared) for slot in self.held]  # fmt: skip
        return (
            f"Limit reached: each user may run {self.user_slots} at a time, and "
            f"{'; '.join(where) or 'another of your turns holds it'}. {then}"
        )


def _holding(slot: HeldSlot, holder: Holder | None, shared: bool = False) -> str:
    """What holds one slot and how to free it, in the person's words."""
    if holder is None and shared:  # another browser at the address: it cannot be seen here
        state = "waits in the queue" if slot.queued else "is running"
        return (
            f"a turn sent from another browser at this address {state} (without sign-in, "
            "everyone at one address shares this limit): this frees by itself as soon as that "
            "turn ends, and a turn waiting there for approval does not hold it"
        )
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
        self.aside = False  # stepped aside while its person answers an approval
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

    def step_aside(self) -> None:
        """Give the running slot up for a while (the turn waits for its person): it no
        longer counts against anyone until `take_back`."""
        self.queue.step_aside(self)

    def take_back(self) -> None:
        """Ask for a running slot again, ahead of new turns; `wait` until admitted."""
        self.queue.take_back(self)


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
        self._returning: deque[TurnSlot] = deque()  # answered turns taking a slot back
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
                queued = [*self._returning, *self._waiting]
                held = [HeldSlot(slot.conversation, slot in queued)
                        for slot in [*self._running, *queued] if slot.user == user]  # fmt: skip
                raise UserLimitReached(held, self.user_slots, user.startswith("ip:"))
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
            if slot in self._returning:
                return self._returning.index(slot) + 1
            if slot in self._waiting:
                return len(self._returning) + self._waiting.index(slot) + 1
            return 0

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
            if not slot.aside:  # one aside counts for nobody already
                self._uncount(slot.user)
            if slot in self._waiting:
                self._waiting.remove(slot)
            elif slot in self._returning:
                self._returning.remove(slot)
            elif slot in self._running:
                self._running.remove(slot)
                started = slot.started_at if slot.started_at is not None else self.clock()
                self._learn(self.clock() - started)
            self._admit()

    def step_aside(self, slot: TurnSlot) -> None:
        """Take a running `slot` out of the count until `take_back` (nothing otherwise).

        Args:
            slot: A running slot from `join`.
        """
        with self._changed:
            if slot.left or slot.aside or slot not in self._running:
                return
            self._running.remove(slot)
            self._uncount(slot.user)
            slot.aside, slot.admitted = True, False
            self._admit()

    def take_back(self, slot: TurnSlot) -> None:
        """Put a slot that stepped aside back in line, ahead of new turns; it is admitted
        once a slot is free and its user runs fewer than `user_slots` turns.

        Args:
            slot: A slot that stepped aside (anything else: nothing happens).
        """
        with self._changed:
            if slot.left or not slot.aside:
                return
            slot.aside = False
            self._per_user[slot.user] += 1
            self._returning.append(slot)
            self._admit()

    def _uncount(self, user: str) -> None:
        self._per_user[user] -= 1
        if self._per_user[user] <= 0:
            del self._per_user[user]

    def _running_for(self, user: str) -> int:
        return sum(1 for slot in self._running if slot.user == user)

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
        """Move waiting turns into free running slots, in order, answered turns first (each
        once its user runs fewer than `user_slots`: one of them may have started another turn
        while it waited for them) (holding the lock)."""
        for slot in list(self._returning):
            if len(self._running) >= self.slots:
                break
            if not self.user_slots or self._running_for(slot.user) < self.user_slots:
                self._returning.remove(slot)
                self._start(slot)
        while self._waiting and len(self._running) < self.slots:
            self._start(self._waiting.popleft())
        self._changed.notify_all()

    def _start(self, slot: TurnSlot) -> None:
        if slot.started_at is None:  # one back from aside keeps its start (the average)
            slot.started_at = self.clock()
        slot.admitted = True
        self._running.append(slot)

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
