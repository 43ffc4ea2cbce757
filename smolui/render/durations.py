"""One way to write a duration on the page: step lines, turn footers, exports.

`20 ms` under a second, `1.7 s` under ten, `12 s` under a minute, `2 min 5 s` above; never
`0.0 s` for a turn that took a few milliseconds. `smolui.js` writes a running step's
elapsed time the same way.
"""

from __future__ import annotations

import math


def format_duration(seconds: float) -> str:
    """A short, readable duration.

    Args:
        seconds: Wall time in seconds (negative counts as 0).

    Raises:
        ValueError: `seconds` is not a finite number.
    """
    if not math.isfinite(seconds):
        raise ValueError(f"A duration must be a finite number of seconds, not {seconds!r}.")
    seconds = max(0.0, seconds)
    millis = round(seconds * 1000)
    if millis < 1:
        return "<1 ms"
    if millis < 1000:
        return f"{millis} ms"
    tenths = round(seconds, 1)
    if tenths < 10:
        return f"{tenths:.1f} s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    return f"{minutes} min {rest} s" if rest else f"{minutes} min"
