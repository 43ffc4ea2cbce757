"""A monotonic clock a test moves forward: a tool "takes" a minute without anyone waiting.

Patched into one module (`monkeypatch.setattr(module, "time", clock)`), it stands for the
`time` module there: the module's deadlines and its measure of a tool's time both read it,
so the test decides how long a tool took instead of sleeping and hoping the machine keeps up.
"""

from __future__ import annotations

import time


class MovedClock:
    """`time.monotonic()` plus the seconds a test has added.

    Args:
        offset: Seconds added from the start.
    """

    def __init__(self, offset: float = 0.0) -> None:
        self.offset = offset

    def monotonic(self) -> float:
        """The real monotonic clock, moved forward by `offset`."""
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        """Move the clock forward, as if `seconds` went by.

        Args:
            seconds: How far.
        """
        self.offset += seconds

    def sleep(self, seconds: float) -> None:
        """A real sleep (polling loops in the patched module still pause between looks)."""
        time.sleep(seconds)
