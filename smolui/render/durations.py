"""One way to write a duration on the page: step lines, turn footers, exports.

`20 ms` under a second, `1.7 s` under ten, `12 s` under a minute, `2 min 5 s` above; never
`0.0 s` for a turn that took a few milliseconds. `smolui.js` writes a running step's
elapsed time the same way, counted from the moment the step began, which the step's title
carries (`running_title`): a reloaded page or a second tab shows the same time.
"""

from __future__ import annotations

import math
import re

# An empty element in a running step's title: the page reads when the step began from its
# class, in milliseconds since the epoch (gradio's sanitizer drops `data-` attributes from a
# title, and keeps classes).
_STAMP = '<span class="step-clock since-{}"></span>'
_STAMP_PATTERN = re.compile(r'<span class="step-clock since-[0-9]+"></span>')


def running_title(title: str, started: float) -> str:
    """A running step's title that tells the page when the step began, for its live timer.

    Args:
        title: The step's title ("Step 2 · thinking…").
        started: When the step began, in seconds since the epoch (`time.time()`).

    Raises:
        ValueError: `started` is not a finite number of seconds.
    """
    if not math.isfinite(started) or started < 0:
        raise ValueError(f"A step's start must be seconds since the epoch, not {started!r}.")
    return title + _STAMP.format(round(started * 1000))


def plain_title(title: str) -> str:
    """The title without the start `running_title` added (text to read, not to show live).

    Args:
        title: A step's title, running or not.
    """
    return _STAMP_PATTERN.sub("", title)


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
