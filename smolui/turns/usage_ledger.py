"""Where usage is counted: the `UsageLedger` seam and its in-memory implementation.

A ledger holds (subject, kind, amount, time) entries and answers sums over a window. The
`UsageLimiter` (`smolui.turns.limits`) asks it to check and count a turn's `Claim`s in one
atomic step; `smolui.store.usage` is the same seam on the conversation database, so several
replicas agree.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

HOUR_S = 3600.0
DAY_S = 86400.0


@dataclass(frozen=True)
class Claim:
    """Usage a turn asks for in one window, refused when it would pass the limit.

    Args:
        subject: Whose usage.
        kind: "turn" or "upload_bytes".
        amount: How much.
        window_s: The window's length (`HOUR_S`, `DAY_S`).
        window_start: Its start (epoch seconds).
        limit: The most the window may hold.
    """

    subject: str
    kind: str
    amount: float
    window_s: float
    window_start: float
    limit: float


class UsageLedger(Protocol):
    """Where usage is counted."""

    def add(self, subject: str, kind: str, amount: float, at: float) -> None:
        """Count `amount` of `kind` for `subject` at time `at` (epoch seconds)."""

    def total(self, subject: str, kind: str, since: float) -> float:
        """The sum of `subject`'s `kind` counted at or after `since` (epoch seconds)."""

    def totals(self, kind: str, since: float) -> dict[str, float]:
        """Every subject's sum of `kind` counted at or after `since` (epoch seconds)."""

    def reserve(
        self,
        claims: Sequence[Claim],
        events: Sequence[tuple[str, str, float]],
        at: float,
        check: bool = True,
    ) -> bool:
        """Count `events` at `at` unless a claim would pass its limit (checked and counted in
        one atomic step); with `check` False, count without looking (a refund)."""


SWEEP_S = 60.0  # how often a `MemoryLedger` drops every subject's old entries


class MemoryLedger:
    """A `UsageLedger` in this process's memory (forgets on restart; one replica only).

    Args:
        keep_s: Forget entries older than this.
    """

    def __init__(self, keep_s: float = DAY_S + HOUR_S):
        self.keep_s = keep_s
        self._entries: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
        self._lock = threading.Lock()
        self._swept = 0.0  # when old entries of every subject were last dropped

    def _count(self, subject: str, kind: str, amount: float, at: float) -> None:
        """Count one entry (under the lock) and drop what is older than `keep_s`: this
        subject's at once, every subject's at most once a minute, so visitors that never
        come back (rotating keys or addresses) leave nothing behind."""
        entries = self._entries[(subject, kind)]
        entries.append((at, amount))
        horizon = at - self.keep_s
        while entries and entries[0][0] < horizon:
            entries.pop(0)
        if at - self._swept < SWEEP_S:
            return
        self._swept = at
        for key, old in list(self._entries.items()):
            kept = [entry for entry in old if entry[0] >= horizon]
            if kept:
                self._entries[key] = kept
            else:
                del self._entries[key]

    def add(self, subject: str, kind: str, amount: float, at: float) -> None:
        """Count `amount` of `kind` for `subject` at `at`.

        Args:
            subject: Whose usage ("password:alice", "key:...", "ip:...").
            kind: "turn", "tokens" or "upload_bytes".
            amount: How much.
            at: When (epoch seconds).
        """
        with self._lock:
            self._count(subject, kind, amount, at)

    def total(self, subject: str, kind: str, since: float) -> float:
        """The sum counted at or after `since`.

        Args:
            subject: Whose usage.
            kind: Which kind.
            since: Start of the window (epoch seconds).
        """
        with self._lock:
            return sum(
                amount for at, amount in self._entries.get((subject, kind), ()) if at >= since
            )

    def totals(self, kind: str, since: float) -> dict[str, float]:
        """Every subject's sum of `kind` counted at or after `since`.

        Args:
            kind: Which kind.
            since: Start of the window (epoch seconds).
        """
        with self._lock:
            sums = {
                subject: sum(amount for at, amount in entries if at >= since)
                for (subject, entry_kind), entries in self._entries.items()
                if entry_kind == kind
            }
        return {subject: value for subject, value in sums.items() if value}

    def reserve(
        self,
        claims: Sequence[Claim],
        events: Sequence[tuple[str, str, float]],
        at: float,
        check: bool = True,
    ) -> bool:
        """Count `events` unless a claim would pass its limit, under this ledger's lock.

        Args:
            claims: What the turn uses, per subject and window.
            events: The usage to count, as (subject, kind, amount).
            at: When (epoch seconds).
            check: False: count without looking at the limits (a refund).
        """
        with self._lock:
            for claim in claims if check else ():
                entries = self._entries.get((claim.subject, claim.kind), ())
                used = sum(amount for when, amount in entries if when >= claim.window_start)
                if used + claim.amount > claim.limit:
                    return False
            for subject, kind, amount in events:
                self._count(subject, kind, amount, at)
        return True
