"""Before a turn runs: the visitor is signed in where required, under their limits, and has a
slot (waiting in the queue, with its position shown, until one is free). While it runs: the
tokens the model reports are counted against the user. After: the slot goes to the next turn.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from typing import Any

from agents.memory.steps import ActionStep, PlanningStep
from smolui.auth import Identity, SignIn
from smolui.turns.limits import Reservation, UsageLimiter, subjects_for
from smolui.turns.pending import PendingTurn
from smolui.turns.queue import (
    SEND_AGAIN,
    Describe,
    QueueRefusal,
    TurnQueue,
    TurnSlot,
    UserLimitReached,
    queue_message,
)

logger = logging.getLogger(__name__)

QUEUE_POLL_S = 1.0  # how often a waiting turn refreshes its position on the page
LEFT_QUEUE = "Stopped: your message left the queue and was not run."


class Admission:
    """One turn's pass: its slot, who it counts for, and the tokens it used.

    It is a `TurnObserver` too: give it the turn's events so it counts the model's tokens.

    Args:
        limiter: Where usage is counted (None: nothing is counted).
        subjects: Who the turn counts for.
        slot: Its place in the turn queue (None: no queue).
        upload_bytes: Bytes its message uploads.
    """

    def __init__(
        self,
        limiter: UsageLimiter | None,
        subjects: list[str],
        slot: TurnSlot | None,
        upload_bytes: int = 0,
    ):
        self.limiter, self.subjects, self.slot = limiter, subjects, slot
        self.upload_bytes = upload_bytes
        self.tokens = 0
        self.reservation: Reservation | None = None  # counted at admission (`admit`)
        self._counted = False
        self._lock = threading.Lock()

    @property
    def admitted(self) -> bool:
        """True once the turn holds a running slot (always, without a queue)."""
        return self.slot is None or (self.slot.admitted and not self.slot.left)

    def wait(self, stopped: threading.Event, poll_s: float = QUEUE_POLL_S) -> Iterator[str]:
        """Wait for a running slot, yielding what the page should say meanwhile; returns once
        admitted, or once `stopped` is set (then the turn has left the queue).

        Args:
            stopped: Set when the visitor presses Stop.
            poll_s: Seconds between two messages.
        """
        if self.slot is None:
            return
        queue = self.slot.queue
        while not self.slot.wait(0):
            if stopped.is_set():
                self.slot.leave()
                return
            position = self.slot.position
            if position:
                yield queue_message(position, queue.waiting, queue.estimated_wait_s(position))
            self.slot.wait(poll_s)

    # -- while its person answers an approval (`smolui.approvals.approver.TurnSlotLease`) ----

    def step_aside(self) -> None:
        """Give the running slot up while the turn waits for its person (nothing without a
        queue): a turn nobody answers must not lock others at the address out."""
        if self.slot is not None:
            self.slot.step_aside()

    def take_back(self) -> None:
        """Ask for a running slot again once answered, ahead of new turns."""
        if self.slot is not None:
            self.slot.take_back()

    def back(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the slot taken back; True once it runs again.

        Args:
            timeout: Seconds.
        """
        return self.slot is None or self.slot.wait(timeout)

    @property
    def position(self) -> int:
        """The turn's place in the queue (1: next); 0 when it runs or has no queue."""
        return self.slot.position if self.slot is not None else 0

    # -- TurnObserver -------------------------------------------------------------------------

    def turn_started(self) -> None:
        """Count the turn and its uploads against the user's limits."""
        with self._lock:
            if self._counted or self.limiter is None:
                return
            self._counted = True
            if self.reservation is not None:  # counted when it was admitted
                return
        try:
            self.limiter.count_turn(self.subjects, self.upload_bytes)
        except Exception:  # a usage database outage must not fail the turn
            logger.warning("could not count a turn", exc_info=True)

    def event(self, event: Any) -> None:
        """Add a step's tokens (as the model reported them).

        Args:
            event: One agent event; only finished action and planning steps carry usage.
        """
        if isinstance(event, ActionStep | PlanningStep) and event.token_usage is not None:
            self.tokens += event.token_usage.input_tokens + event.token_usage.output_tokens

    def turn_finished(self, state: str, seconds: float, error: BaseException | None) -> None:
        """Count the turn's tokens and give its slot to the next turn.

        Args:
            state: How it ended.
            seconds: How long it ran.
            error: What ended a failed turn.
        """
        self.release()
        if self.limiter is not None and self.tokens:
            try:
                self.limiter.count_tokens(self.subjects, self.tokens)
            except Exception:  # a usage database outage must not fail the turn
                logger.warning("could not count a turn's tokens", exc_info=True)
            self.tokens = 0

    def release(self) -> None:
        """Give the slot back (leave the queue if still waiting); safe to call twice."""
        if self.slot is not None:
            self.slot.release()
        with self._lock:  # it never started: what admission counted is given back
            refund = self.reservation if not self._counted else None
            self.reservation, self._counted = None, True
        if refund is not None and self.limiter is not None:
            try:
                self.limiter.refund(refund)
            except Exception:  # a usage database outage must not fail the page
                logger.warning("could not give back an unstarted turn's count", exc_info=True)


class TurnAdmission:
    """The app's gate in front of every turn.

    Args:
        sign_in: Who may chat (None: anyone).
        limiter: Per-user limits (None: no limits).
        queue: The turn queue (None: turns start at once).
    """

    def __init__(
        self,
        sign_in: SignIn | None = None,
        limiter: UsageLimiter | None = None,
        queue: TurnQueue | None = None,
    ):
        self.sign_in, self.limiter, self.queue = sign_in, limiter, queue

    def enter(
        self,
        identity: Identity,
        owner: str | None,
        pending: PendingTurn,
        conversation: str = "",
        describe: Describe | None = None,
        then: str = SEND_AGAIN,
    ) -> Admission | str:
        """Let a turn in (it may still have to wait), or say why not; nothing runs then.

        Args:
            identity: Who sends it.
            owner: The conversation's owner (a signed-in owner id or a browser key).
            pending: The turn's message (or retry).
            conversation: The conversation's id: an API client that keeps no owner key is
                held to one turn at a time per conversation (not per address, which many
                people may share).
            describe: Names the person's conversations whose turns hold their slots, for
                the refusal (None: it names none).
            then: What the person does once their slot is free, said by that refusal.

        Returns:
            An `Admission` (wait on it, then run), or the refusal for the chat.
        """
        if self.sign_in is not None:
            refusal = self.sign_in.refusal(identity)
            if refusal:
                return refusal
        subjects = subjects_for(identity.owner or owner, identity.signed_in, identity.client)
        upload_bytes = _upload_bytes(pending)
        reservation = None
        if self.limiter is not None:
            try:  # checked and counted at once: two replicas cannot both pass a limit
                reservation = self.limiter.admit(subjects, upload_bytes)
            except Exception:  # the usage database is down: let the turn run, say so in the log
                logger.warning("could not read usage; the turn runs unchecked", exc_info=True)
            if isinstance(reservation, str):
                return reservation
        slot = None
        if self.queue is not None:
            try:
                slot = self.queue.join(_runner(identity, owner, conversation), conversation)
            except QueueRefusal as error:
                if reservation is not None:
                    self.limiter.refund(reservation)
                if isinstance(error, UserLimitReached):
                    return error.message(describe, then)
                return str(error)
        admission = Admission(self.limiter, subjects, slot, upload_bytes)
        admission.reservation = reservation
        return admission

    def usage_report(self, identity: Identity) -> list[dict[str, Any]]:
        """Everyone's usage this hour and today (empty when no limit is set).

        Args:
            identity: Who asks.

        Raises:
            PermissionError: They are not an admin (`SMOLUI_ADMINS`).
        """
        if not identity.admin:
            raise PermissionError("Only admins (SMOLUI_ADMINS) may read everyone's usage.")
        return self.limiter.report() if self.limiter is not None else []


def _runner(identity: Identity, owner: str | None, conversation: str) -> str:
    """Whose running turns count against the per-user concurrency: a signed-in user; an
    anonymous browser's address as a whole (browser keys are free: a new one per page would
    hold every slot); a key-less API client's conversation."""
    if identity.owner is not None:
        return identity.owner
    if owner and identity.client:
        return f"ip:{identity.client}"
    return f"key:{owner}" if owner else f"conversation:{conversation}"


def _upload_bytes(pending: PendingTurn) -> int:
    """Bytes of the files the message attaches (already on disk in gradio's upload cache)."""
    total = 0
    for path in pending.files:
        try:
            total += os.path.getsize(path)
        except (OSError, TypeError):
            continue
    return total


def build_admission(settings: Any, store: Any = None) -> TurnAdmission:
    """The gate for these settings: sign-in, limits counted in `store`'s database (in memory
    without one) and a queue of `settings.concurrency` running turns.

    Args:
        settings: The app's `Settings`.
        store: The `ConversationStore` (its database keeps usage for every replica), or None.

    Raises:
        AuthSetupError: Sign-in is configured in a way that cannot work.
    """
    from smolui.auth import AuthConfig
    from smolui.auth.proxy_peers import Proxies
    from smolui.turns.limits import Limits

    proxies = Proxies.from_settings(settings)
    if proxies.active:
        logger.info("X-Forwarded-For believed from %s (%d hops)",
                    ",".join(proxies.peers.entries), proxies.hops)  # fmt: skip
    sign_in = SignIn(AuthConfig.from_settings(settings), proxies=proxies)
    limits, limiter = Limits.from_settings(settings), None
    if limits.active:  # without limits nothing is counted: no write per turn
        ledger = None
        if store is not None:
            from smolui.store.usage import StoreLedger

            ledger = StoreLedger(store.engine)
        limiter = UsageLimiter(limits, ledger)
    queue = TurnQueue(settings.concurrency, settings.queue_size, settings.user_concurrency)
    return TurnAdmission(sign_in, limiter, queue)
