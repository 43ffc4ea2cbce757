"""`StoreLedger`: usage against per-user limits, kept in the conversation database.

Several replicas on one database count into the same rows, so a user's limits hold whichever
replica serves them, and across restarts.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, insert, select

from smolui.store.schema import UsageEvent

logger = logging.getLogger(__name__)

KEEP_S = 2 * 86400.0  # rows older than this no longer count for any limit
PURGE_EVERY_S = 3600.0


class StoreLedger:
    """A `smolui.turns.limits.UsageLedger` on the store's database.

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


def _time(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)
