"""Per-user limits: turns per hour and per day, model tokens per day, upload bytes per day.

Usage is counted in fixed windows (the clock hour, the UTC day), so a refusal can say exactly
when the limit resets. Each turn is counted for every subject it belongs to: a signed-in user,
or an anonymous browser key and its client address; one exhausted subject refuses the turn.
Counts live in a `UsageLedger`: in memory for one process, or in the conversation database
(`smolui.store.usage`) so several replicas agree. A turn is admitted by `UsageLimiter.admit`,
which checks and counts it in one step of the ledger: two replicas admitting turns of the same
user at the same moment cannot both pass a limit.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from smolui.turns.usage_ledger import DAY_S, HOUR_S, Claim, MemoryLedger, UsageLedger

MB = 1024 * 1024
TURN, TOKENS, UPLOAD = "turn", "tokens", "upload_bytes"
RACED = (
    "Limit reached: another of your turns took the last place in this window just now. "
    "Nothing was run."
)


@dataclass(frozen=True)
class Reservation:
    """What `UsageLimiter.admit` counted for a turn (given back if it never starts).

    Args:
        claims: The windows it counted in.
        events: The usage it counted, as (subject, kind, amount).
        at: When (epoch seconds).
    """

    claims: tuple[Claim, ...]
    events: tuple[tuple[str, str, float], ...]
    at: float


@dataclass(frozen=True)
class Limits:
    """What each user may use; 0 means no limit.

    Args:
        turns_per_hour: Turns started per clock hour.
        turns_per_day: Turns started per UTC day.
        tokens_per_day: Model tokens (input + output, as the model reports them) per UTC day.
        upload_bytes_per_day: Bytes of accepted uploads per UTC day.
    """

    turns_per_hour: int = 0
    turns_per_day: int = 0
    tokens_per_day: int = 0
    upload_bytes_per_day: int = 0

    @classmethod
    def from_settings(cls, settings: Any) -> Limits:
        """The limits in the app's `Settings`.

        Args:
            settings: The app's settings.
        """
        return cls(
            turns_per_hour=settings.turns_per_hour,
            turns_per_day=settings.turns_per_day,
            tokens_per_day=settings.tokens_per_day,
            upload_bytes_per_day=int(settings.upload_mb_per_day * MB),
        )

    @property
    def active(self) -> bool:
        """True when any limit is set."""
        figures = (self.turns_per_hour, self.turns_per_day, self.tokens_per_day)
        return any(figures) or self.upload_bytes_per_day > 0


@dataclass(frozen=True)
class _Window:
    kind: str
    limit: int
    length_s: float
    what: str  # "turns", "model tokens", "MB of uploads"
    period: str  # "this hour", "today"


class UsageLimiter:
    """Checks a turn against the limits before anything runs, and counts what it used.

    Args:
        limits: The limits.
        ledger: Where usage is counted (default: in memory).
        clock: Epoch seconds now (injectable for tests).
    """

    def __init__(
        self,
        limits: Limits,
        ledger: UsageLedger | None = None,
        clock: Callable[[], float] = time.time,
    ):
        self.limits = limits
        self.ledger: UsageLedger = ledger or MemoryLedger()
        self.clock = clock
        windows = (
            _Window(TURN, limits.turns_per_hour, HOUR_S, "turns", "this hour"),
            _Window(TURN, limits.turns_per_day, DAY_S, "turns", "today"),
            _Window(TOKENS, limits.tokens_per_day, DAY_S, "model tokens", "today"),
            _Window(UPLOAD, limits.upload_bytes_per_day, DAY_S, "MB of uploads", "today"),
        )
        self._windows = [window for window in windows if window.limit > 0]

    def refusal(self, subjects: Sequence[str], upload_bytes: int = 0) -> str | None:
        """Why a new turn may not start (which limit, the figure, when it resets), or None.

        Args:
            subjects: Who the turn counts for.
            upload_bytes: Bytes the turn's message uploads.
        """
        now = self.clock()
        for window in self._windows:
            start = window_start(now, window.length_s)
            for subject in subjects:
                used = self.ledger.total(subject, window.kind, start)
                if _over(window, used, upload_bytes):
                    reset_at = start + window.length_s
                    return _message(window, used, upload_bytes, reset_at, now, subject)
        return None

    def admit(self, subjects: Sequence[str], upload_bytes: int = 0) -> Reservation | str:
        """Check a turn that starts now against the limits and count it, in one step of the
        ledger; or say why not (then nothing is counted).

        Args:
            subjects: Who the turn counts for.
            upload_bytes: Bytes the turn's message uploads.

        Returns:
            The `Reservation` (give it back with `refund` if the turn never starts), or the
            refusal for the chat.
        """
        refusal = self.refusal(subjects, upload_bytes)  # says which limit, with figures
        if refusal:
            return refusal
        now = self.clock()
        events = tuple(
            (subject, kind, float(amount))
            for subject in subjects
            for kind, amount in ((TURN, 1), (UPLOAD, upload_bytes))
            if amount
        )
        claims = tuple(
            Claim(
                subject,
                window.kind,
                amount,
                window.length_s,
                window_start(now, window.length_s),
                window.limit,
            )  # fmt: skip
            for subject, kind, amount in events
            for window in self._windows
            if window.kind == kind
        )
        if self.ledger.reserve(claims, events, now):
            return Reservation(claims, events, now)
        return self.refusal(subjects, upload_bytes) or RACED  # another replica took the place

    def refund(self, reservation: Reservation) -> None:
        """Give back what `admit` counted for a turn that never started (it left the queue).

        Args:
            reservation: What `admit` returned.
        """
        claims = tuple(
            Claim(c.subject, c.kind, -c.amount, c.window_s, c.window_start, c.limit)
            for c in reservation.claims
        )
        events = tuple((subject, kind, -amount) for subject, kind, amount in reservation.events)
        self.ledger.reserve(claims, events, reservation.at, check=False)

    def count_turn(self, subjects: Sequence[str], upload_bytes: int = 0) -> None:
        """Count a turn that starts now, and its uploads.

        Args:
            subjects: Who the turn counts for.
            upload_bytes: Bytes its message uploaded.
        """
        now = self.clock()
        for subject in subjects:
            self.ledger.add(subject, TURN, 1, now)
            if upload_bytes:
                self.ledger.add(subject, UPLOAD, upload_bytes, now)

    def count_tokens(self, subjects: Sequence[str], tokens: int) -> None:
        """Count model tokens a turn used (as the model reported them).

        Args:
            subjects: Who the turn counts for.
            tokens: Input plus output tokens.
        """
        if tokens <= 0:
            return
        now = self.clock()
        for subject in subjects:
            self.ledger.add(subject, TOKENS, tokens, now)

    def usage(self, subject: str) -> dict[str, float]:
        """What `subject` used this hour and today (for the admin view and tests).

        Args:
            subject: Whose usage.
        """
        now = self.clock()
        hour, day = window_start(now, HOUR_S), window_start(now, DAY_S)
        return {
            "turns_this_hour": self.ledger.total(subject, TURN, hour),
            "turns_today": self.ledger.total(subject, TURN, day),
            "tokens_today": self.ledger.total(subject, TOKENS, day),
            "upload_bytes_today": self.ledger.total(subject, UPLOAD, day),
        }

    def report(self) -> list[dict[str, Any]]:
        """Everyone's usage this hour and today, busiest first (for admins)."""
        now = self.clock()
        hour, day = window_start(now, HOUR_S), window_start(now, DAY_S)
        columns = {
            "turns_this_hour": self.ledger.totals(TURN, hour),
            "turns_today": self.ledger.totals(TURN, day),
            "tokens_today": self.ledger.totals(TOKENS, day),
            "upload_bytes_today": self.ledger.totals(UPLOAD, day),
        }
        subjects = set().union(*columns.values())
        rows = [
            {
                "subject": subject,
                **{name: column.get(subject, 0) for name, column in columns.items()},
            }
            for subject in subjects
        ]
        return sorted(rows, key=lambda row: (-row["turns_today"], row["subject"]))


def window_start(now: float, length_s: float) -> float:
    """Start of the fixed window holding `now`: the clock hour, or the UTC day.

    Args:
        now: Epoch seconds.
        length_s: `HOUR_S` or `DAY_S`.
    """
    return now - (now % length_s)


def subjects_for(owner: str | None, signed_in: bool, client: str | None) -> list[str]:
    """Who a turn counts for: the signed-in user; or the browser key and the client address.

    Args:
        owner: The conversation's owner (a user's owner id or a browser key).
        signed_in: True when `owner` is a signed-in user.
        client: The client's IP address, when known.
    """
    if signed_in and owner:
        return [owner]
    subjects = [f"key:{owner}"] if owner else []
    if client:
        subjects.append(f"ip:{client}")
    return subjects


def _over(window: _Window, used: float, upload_bytes: int) -> bool:
    """True when one more turn (with `upload_bytes` of uploads) would pass the window's limit."""
    if window.kind == TURN:
        return used + 1 > window.limit
    if window.kind == UPLOAD:
        return used + upload_bytes > window.limit
    return used >= window.limit  # tokens: a turn's cost is known only once it ran


def _message(
    window: _Window, used: float, upload_bytes: int, reset_at: float, now: float, subject: str
) -> str:
    limit, figure = window.limit, f"{int(used):,}"
    if window.kind == UPLOAD:
        limit_text, figure = f"{window.limit / MB:g}", f"{used / MB:.1f}"
        extra = f" This message adds {upload_bytes / MB:.1f} MB." if upload_bytes else ""
    else:
        limit_text, extra = f"{limit:,}", ""
    who = {"key": "Each visitor who is not signed in is", "ip": "Each network address is"}.get(
        subject.split(":", 1)[0], "Each user is"
    )
    return (
        f"Limit reached: {who} allowed {limit_text} {window.what} {window.period}; "
        f"used {figure}.{extra} It resets at {_clock(reset_at)} UTC "
        f"(in {_duration(reset_at - now)}). Nothing was run."
    )


def _clock(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M")


def _duration(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    if minutes < 60:
        return f"{minutes} min"
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest} min" if rest else f"{hours} h"
