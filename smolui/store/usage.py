"""`StoreLedger`: usage against per-user limits, kept in the conversation database.

Several replicas on one database count into the same rows, so a user's limits hold whichever
replica serves them, and across restarts. A turn is admitted by `reserve`: one counter row per
user, kind and window, raised in one statement whose row lock makes two replicas' turns take
their places one after the other; the second sees the first's count and is refused.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import DateTime, Float, Integer, String, delete, func, insert, select
from sqlalchemy.orm import Mapped, mapped_column

from smolui.store.schema import Base, UsageEvent

logger = logging.getLogger(__name__)

KEEP_S = 2 * 86400.0  # rows older than this no longer count for any limit
PURGE_EVERY_S = 3600.0


class UsageCounter(Base):
    """One subject's usage of one kind in one fixed window (migration 0010)."""

    __tablename__ = "usage_counters"

    subject: Mapped[str] = mapped_column(String(160), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    window_s: Mapped[int] = mapped_column(Integer, primary_key=True)
    window_start: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    amount: Mapped[float] = mapped_column(Float)


class Claim(Protocol):
    """Usage a turn asks for in one window (`smolui.turns.usage_ledger.Claim`)."""

    subject: str
    kind: str
    amount: float
    window_s: float
    window_start: float
    limit: float


class StoreLedger:
    """A `smolui.turns.usage_ledger.UsageLedger` on the store's database.

    Args:
        engine: The store's (migrated) SQLAlchemy engine.
    """

    def __init__(self, engine: Any):
        self.engine = engine
        self._purged_at = 0.0
        self._lock = threading.Lock()

    def add(self, subject: str, kind: str, amount: float, at: float) -> None:
        """Count `amount` of `kind` for `subject` at `at` (epoch seconds).

        Args:
            subject: Whose usage.
            kind: "turn", "tokens" or "upload_bytes".
            amount: How much.
            at: When.
        """
        row = {"subject": subject, "kind": kind, "amount": float(amount), "at": _time(at)}
        with self.engine.begin() as connection:
            connection.execute(insert(UsageEvent), row)
        self._purge_now_and_then(at)

    def reserve(
        self,
        claims: Sequence[Claim],
        events: Sequence[tuple[str, str, float]],
        at: float,
        check: bool = True,
    ) -> bool:
        """Count `events`, unless a claim would pass its limit: atomic across replicas.

        Each claim raises its window's counter (a new counter starts from the usage events
        already in the window); the events are the rows reports and `total` read.

        Args:
            claims: What the turn uses, per subject and window.
            events: The usage to count, as (subject, kind, amount).
            at: When (epoch seconds).
            check: False: count without looking at the limits (a refund: negative amounts).

        Returns:
            True when counted; False (nothing counted) when a claim would pass its limit.
        """
        # Always the same order: two turns raising the same counters cannot deadlock.
        ordered = sorted(claims, key=lambda c: (c.subject, c.kind, c.window_s))
        try:
            with self.engine.begin() as connection:
                for claim in ordered:
                    total = connection.execute(self._raise(claim)).scalar_one()
                    if check and total > claim.limit:
                        raise _OverLimit  # rolls back every counter raised so far
                rows = [{"subject": subject, "kind": kind, "amount": float(amount),
                         "at": _time(at)} for subject, kind, amount in events]  # fmt: skip
                if rows:
                    connection.execute(insert(UsageEvent), rows)
        except _OverLimit:
            return False
        return True

    def _raise(self, claim: Claim) -> Any:
        """One statement: the counter raised by the claim (created if missing), its total."""
        start = _time(claim.window_start)
        already = (
            select(func.coalesce(func.sum(UsageEvent.amount), 0.0))
            .where(
                UsageEvent.subject == claim.subject,
                UsageEvent.kind == claim.kind,
                UsageEvent.at >= start,
            )  # fmt: skip
            .scalar_subquery()
        )
        dialect = self.engine.dialect.name
        if dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as upsert
        else:
            from sqlalchemy.dialects.sqlite import insert as upsert
        statement = upsert(UsageCounter).values(
            subject=claim.subject, kind=claim.kind, window_s=int(claim.window_s),
            window_start=start, amount=already + float(claim.amount),
        )  # fmt: skip
        return statement.on_conflict_do_update(
            index_elements=["subject", "kind", "window_s", "window_start"],
            set_={"amount": UsageCounter.amount + float(claim.amount)},
        ).returning(UsageCounter.amount)

    def total(self, subject: str, kind: str, since: float) -> float:
        """The sum counted at or after `since`.

        Args:
            subject: Whose usage.
            kind: Which kind.
            since: Start of the window (epoch seconds).
        """
        query = select(func.coalesce(func.sum(UsageEvent.amount), 0.0)).where(
            UsageEvent.subject == subject, UsageEvent.kind == kind, UsageEvent.at >= _time(since)
        )
        with self.engine.connect() as connection:
            return float(connection.execute(query).scalar_one())

    def totals(self, kind: str, since: float) -> dict[str, float]:
        """Every subject's sum of `kind` counted at or after `since`.

        Args:
            kind: Which kind.
            since: Start of the window (epoch seconds).
        """
        query = (
            select(UsageEvent.subject, func.sum(UsageEvent.amount))
            .where(UsageEvent.kind == kind, UsageEvent.at >= _time(since))
            .group_by(UsageEvent.subject)
        )
        with self.engine.connect() as connection:
            return {subject: float(total) for subject, total in connection.execute(query)}

    def _purge_now_and_then(self, now: float) -> None:
        with self._lock:
            if time.monotonic() - self._purged_at < PURGE_EVERY_S:
                return
            self._purged_at = time.monotonic()
        with self.engine.begin() as connection:
            connection.execute(delete(UsageEvent).where(UsageEvent.at < _time(now - KEEP_S)))
            old = UsageCounter.window_start < _time(now - KEEP_S)
            connection.execute(delete(UsageCounter).where(old))


class _OverLimit(Exception):
    """A claim would pass its limit: the reservation's transaction is rolled back."""


def _time(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)
