"""Waiting for an event in a test: a condition polled until it holds, or a clear failure.

Tests wait for what they stand for (a condition, a page element, a gate they release), never for
a duration, and never assert how long something took: speed goals live in `bench/`. The timeout
here is a generous bound for a loaded machine, not an expectation.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

GENEROUS_S = 60.0


def wait_for(
    condition: Callable[[], T], message: str, timeout: float = GENEROUS_S, poll: float = 0.02
) -> T:
    """Poll `condition` until it returns something true, and return that.

    Args:
        condition: What the test waits for.
        message: What did not happen, for the failure.
        timeout: Seconds before the test fails (generous: machines are busy).
        poll: Seconds between two looks.

    Raises:
        AssertionError: The condition did not hold within the timeout.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s: {message}")
        time.sleep(poll)
