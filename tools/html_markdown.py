"""HTML to Markdown within a budget: a size cap, then a child process with CPU, memory and
time limits.

A parser builds a tree many times the size of the page, and a page can be made to cost
seconds of CPU and hundreds of MB per MB (deep nesting, huge tables). The conversion runs
in a separate process so that its cost is capped and returned to the system when it ends;
when it runs out of budget, the page's text is taken out with one linear pass instead,
and a note says so.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

_DROP_BLOCKS = re.compile(
    r"<(script|style|noscript|template|svg)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL
)
_TAG = re.compile(r"<[^<>]*>")  # stops at the next '<': linear even when '>' never comes
_ROOT = str(Path(__file__).resolve().parents[1])

# Runs in the child: limits first, then the conversion; markdown on stdout.
_CHILD = """
import sys
seconds, memory, root = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
try:
    import resource
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
except (ImportError, ValueError, OSError):
    pass  # no such limits on this system: the parent's timeout still applies
sys.path.insert(0, root)
from tools.html_markdown import html_to_markdown
html = sys.stdin.buffer.read().decode("utf-8", "replace")
sys.stdout.buffer.write(html_to_markdown(html).encode("utf-8", "replace"))
"""


def html_to_markdown(html: str) -> str:
    """Convert HTML to compact Markdown (scripts, styles and extra blank lines removed).

    Unbounded: call it on trusted pages only, or through `bounded_markdown`.

    Args:
        html: The page's HTML.
    """
    from markdownify import markdownify

    markdown = markdownify(_DROP_BLOCKS.sub("", html), heading_style="ATX")
    markdown = re.sub(r"[ \t]+\n", "\n", markdown)
    return re.sub(r"\n{3,}", "\n\n", markdown).strip()


def bounded_markdown(html: str, max_chars: int, seconds: float, memory_bytes: int = 1024**3) -> str:
    """Markdown of at most `max_chars` characters of HTML, converted within `seconds` (CPU
    and wall clock) and `memory_bytes` of address space; plain text and a note when the
    page is over these limits.

    Args:
        html: The page's HTML.
        max_chars: HTML characters converted at most (the rest is cut, with a note).
        seconds: Time the conversion may take.
        memory_bytes: Address space of the converting process.
    """
    notes = []
    if len(html) > max_chars:
        cut = html.rfind("<", 0, max_chars)
        html = html[: cut if cut > max_chars // 2 else max_chars]
        notes.append(
            f"[The page's HTML is longer than {max_chars:,} characters: only its start was read.]"
        )
    markdown = _convert_in_child(html, seconds, memory_bytes)
    if markdown is None:
        markdown = plain_text(html)
        notes.append(
            "[The page was too complex to convert to Markdown within the limits: "
            "its plain text is shown.]"
        )
    return "\n\n".join([*notes, markdown])  # first: a cut would hide notes at the end


def plain_text(html: str) -> str:
    """The text of HTML with its tags removed, in one linear pass (no parser, no tree).

    Args:
        html: The page's HTML.
    """
    text = _TAG.sub(" ", html)
    text = re.sub(r"[ \t\r\f\v]+", " ", text)
    return re.sub(r"\s*\n\s*", "\n", text).strip()


def _convert_in_child(html: str, seconds: float, memory_bytes: int) -> str | None:
    cpu = max(1, math.ceil(seconds))
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(cpu), str(memory_bytes), _ROOT],
            input=html.encode("utf-8", "replace"),
            capture_output=True,
            timeout=max(1.0, seconds),
            check=False,
        )
    except (subprocess.TimeoutExpired, OSError):
        return None  # run() has killed the child on a timeout
    if done.returncode != 0:  # over its CPU or memory limit, or the tree too deep
        return None
    return done.stdout.decode("utf-8", "replace")
