"""Repair before retry: the generic fix to a step's code where the fix is obvious.

Any model sometimes writes nearly right code: a bracket left open, a stray code fence, a line
of prose around the code. Each of these would cost a whole step (an error, then a retry);
fixing it here costs nothing. Every fix is recorded in `Repair.notes`, which the agent puts in
the step's observations. A model's profile may add repairs of its own
(`agents.loop.profile.ModelProfile.repair`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

_MARKER_LINE = re.compile(r"^\s*(```[\w-]*|</?code>|<end_code>)\s*$")
_PROSE_LINE = re.compile(r"^[A-Za-z][\w'’,-]*(\s+[\w'’,.:;!?()-]+){2,}\s*$")
_NOTE_START = "Note: your code was repaired before running it: "
_NOTES_START = "Note: "
_PAIRS = {"(": ")", "[": "]", "{": "}"}
_MAX_DROPPED_LINES = 3


@dataclass
class Repair:
    """Code after repair, and what was changed (empty when nothing was).

    Args:
        code: The code to run.
        notes: One short sentence per fix.
    """

    code: str
    notes: list[str] = field(default_factory=list)

    @property
    def note(self) -> str:
        """The fixes as one line for the step's observations ("" when there were none)."""
        if not self.notes:
            return ""
        return _NOTE_START + "; ".join(self.notes) + "."


def repair_code(code: str) -> Repair:
    """Fix obvious syntax slips in a step's code (the repair every model gets).

    Args:
        code: The code the model wrote.
    """
    if _parses(code):
        return Repair(code)
    fixed, note = fix_syntax(code)
    return Repair(fixed, [note]) if note else Repair(code)


def fix_syntax(code: str) -> tuple[str, str]:
    """Return (code, note) for code that does not parse; the note is "" when no fix worked.

    Args:
        code: Code that raises SyntaxError when parsed.
    """
    lines = code.split("\n")
    kept = [line for line in lines if not _MARKER_LINE.match(line)]
    if len(kept) < len(lines):
        candidate = "\n".join(kept)
        if _parses(candidate):
            return candidate, "stray code-block markers were removed"
        lines = kept
    closed = _close_brackets(lines)
    if closed is not None:
        return closed, "unclosed brackets or quotes were closed"
    trimmed = _drop_prose(lines)
    if trimmed is not None:
        return trimmed, "lines of plain text around the code were removed"
    return code, ""


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def _close_brackets(lines: list[str]) -> str | None:
    """Close what each line leaves open (brackets, a quote); None if that does not parse."""
    fixed, changed = [], False
    for line in lines:
        closers = _missing_closers(line)
        if closers is None:
            return None
        changed = changed or bool(closers)
        fixed.append(line.rstrip() + closers if closers else line)
    candidate = "\n".join(fixed)
    return candidate if changed and _parses(candidate) else None


def _missing_closers(line: str) -> str | None:
    """The characters that close what `line` opens; None when it closes more than it opens."""
    stack: list[str] = []
    quote = ""
    index = 0
    while index < len(line):
        char = line[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            if line.startswith(char * 3, index):
                return ""  # a triple-quoted string may span lines: leave it alone
            quote = char
        elif char == "#":
            break
        elif char in _PAIRS:
            stack.append(_PAIRS[char])
        elif char in _PAIRS.values() and (not stack or stack.pop() != char):
            return None
        index += 1
    return quote + "".join(reversed(stack))


def _drop_prose(lines: list[str]) -> str | None:
    """Remove up to a few lines of plain English before or after the code."""
    start, end = 0, len(lines)
    while start < end and start < _MAX_DROPPED_LINES and _is_prose(lines[start]):
        start += 1
    while end > start and len(lines) - end < _MAX_DROPPED_LINES and _is_prose(lines[end - 1]):
        end -= 1
    if (start, end) == (0, len(lines)) or start == end:
        return None
    candidate = "\n".join(lines[start:end])
    return candidate if _parses(candidate) else None


def _is_prose(line: str) -> bool:
    stripped = line.strip()
    return not stripped or (bool(_PROSE_LINE.match(stripped)) and not _parses(stripped))


def with_note(note: str, text: str | None) -> str | None:
    """`text` with the repair note before it (`text` itself when there is no note).

    Args:
        note: `Repair.note`.
        text: The step's observations, or None.
    """
    if not note:
        return text
    return f"{note}\n{text}" if text else note


def strip_note(text: str) -> str:
    """`text` without the notes that `with_note` put before it (a repair's, and any a
    profile adds about how a step was chosen): its first lines that start with "Note: ".

    Args:
        text: A step's observations.
    """
    while text.startswith(_NOTES_START):
        text = text.partition("\n")[2]
    return text
