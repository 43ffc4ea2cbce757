"""Warm start: a new sandbox worker imports the data stack while the model writes its first step.

Importing numpy, pandas and matplotlib costs about a second. A conversation's worker is
started ahead of its first step (the agent warms its executor up), so it has idle time
while the model thinks: it spends it importing `DATA_STACK`, already confined (the
import runs under the same rules as agent code, nothing unconfined touches the disk).
It never delays a request: it starts only once the pipe has been quiet for `IDLE_S`
seconds and stops between modules as soon as a request arrives. A worker whose first
code comes at once (tests, benchmarks, a replacement) skips it and stays small. Where a
template process can run (`sandbox.template`), workers are forked from one that imported
`DATA_STACK` once, so they start with it, shared, and there is nothing left to import.
Only the standard library is imported here at load time.
"""

from __future__ import annotations

import importlib
import select

IDLE_S = 0.5
DATA_STACK = ("numpy", "pandas", "matplotlib", "matplotlib.pyplot")


def modules_to_preload(roots: set[str] | None) -> list[str]:
    """The data-stack modules the import policy lets the code use (so worth importing early).

    Args:
        roots: The authorized module roots; None allows everything.
    """
    return [m for m in DATA_STACK if roots is None or m.split(".")[0] in roots]


def preload_while_idle(read_fd: int, modules: list[str], idle_s: float = IDLE_S) -> bool:
    """Import `modules` one by one while nothing arrives on `read_fd`.

    Args:
        read_fd: The pipe requests arrive on.
        modules: What to import, in order.
        idle_s: How long the pipe must stay quiet before the first import.

    Returns:
        True once every module was tried, False when a request came first.
    """
    if _waiting(read_fd, idle_s):
        return False
    for name in modules:
        if _waiting(read_fd, 0):
            return False
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001, S112 - missing or broken: the code gets the error
            continue
    return True


def _waiting(read_fd: int, timeout: float) -> bool:
    """True when something is ready to read on `read_fd` within `timeout` seconds."""
    try:
        ready, _, _ = select.select([read_fd], [], [], timeout)
    except (OSError, ValueError):
        return True
    return bool(ready)
