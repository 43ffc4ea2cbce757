"""Repair before retry: one cheap fix to a step's code where the fix is obvious.

A small model often writes nearly right code: a bracket left open, a stray code fence, a line of
prose after the code, `math.sqrt` without `import math`, or the answer as a bare last expression
(or a last `print`) instead of `final_answer(...)`.
Each of these would cost a whole step (an error, then a retry); fixing it here costs nothing.
Every fix is recorded in `Repair.notes`, which the agent puts in the step's observations.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from agents.loop.slips import fix_paths, fix_slips

_MARKER_LINE = re.compile(r"^\s*(```[\w-]*|</?code>|<end_code>)\s*$")
_PROSE_LINE = re.compile(r"^[A-Za-z][\w'’,-]*(\s+[\w'’,.:;!?()-]+){2,}\s*$")
_VALUE_QUESTION = re.compile(
    r"\?|\b(what|how|which|who|when|compute|calculate|convert|count|find|give|tell|return|"
    r"evaluate|sum|reverse|sort)\b",
    re.IGNORECASE,
)
_NOT_A_VALUE = re.compile(r"\b(plot|draw|chart|save|write (it )?to|create a file)\b", re.IGNORECASE)
_NOTE_START = "Note: your code was repaired before running it: "
_NOTES_START = "Note: "
_PAIRS = {"(": ")", "[": "]", "{": "}"}
_MAX_DROPPED_LINES = 3
# Modules a small model uses without importing them (all in the base authorized imports).
_COMMON_MODULES = frozenset(
    {
        "math",
        "datetime",
        "statistics",
        "random",
        "re",
        "string",
        "json",
        "collections",
        "itertools",
        "fractions",
        "decimal",
        "time",
    }
)


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


def repair_code(
    code: str,
    task: str | None = None,
    small_model: bool = False,
    tool_names: Iterable[str] = (),
) -> Repair:
    """Fix obvious slips in a step's code.

    Args:
        code: The code the model wrote.
        task: The task, to tell whether it asks for a value.
        small_model: Also apply the fixes for small models: rewrite another language's
            idiom where the meaning is beyond doubt and open an attached file at its
            announced path (`agents.loop.slips`), import a common module the code uses
            without importing it, and turn the last line into `final_answer(...)` when the
            code gives no final answer and the task asks for a value.
        tool_names: Tools whose bare call is left alone (the model wants to see the result).
    """
    repair = Repair(code)
    if not _parses(code):
        fixed, note = fix_syntax(code)
        if note:
            repair = Repair(fixed, [note])
    if not small_model or not _parses(repair.code):
        return repair
    repair.code, slips = fix_slips(repair.code)
    repair.code, path_notes = fix_paths(repair.code, task)
    repair.notes += slips + path_notes
    missing = missing_imports(repair.code)
    if missing:
        repair.code = "".join(f"import {name}\n" for name in missing) + repair.code
        repair.notes.append(f"the missing import of {', '.join(missing)} was added")
    if asks_for_value(task):
        answered = answer_with_last_expression(repair.code, set(tool_names))
        if answered is not None:
            repair.code = answered
            repair.notes.append("its last line became the final answer, final_answer(...)")
    return repair


def missing_imports(code: str) -> list[str]:
    """Common modules the code uses (`math.sqrt(...)`) but neither imports nor defines.

    Args:
        code: Code that parses.
    """
    tree = ast.parse(code)
    bound = {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    bound |= {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    used = {
        node.value.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
    }
    return sorted((used & _COMMON_MODULES) - bound)


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


def asks_for_value(task: str | None) -> bool:
    """Whether a task asks for a value (a question, or compute/convert/count ...).

    Args:
        task: The task text.
    """
    if not task:
        return False
    return bool(_VALUE_QUESTION.search(task)) and not _NOT_A_VALUE.search(task)


def answer_with_last_expression(code: str, tool_names: set[str]) -> str | None:
    """The code with its last line turned into `final_answer(...)`, or None.

    The last line gives the answer when it is a bare expression, or `print` of one value
    while the code reads no tool or file (then the model is still looking at what it read).
    None when the code already calls `final_answer` or ends otherwise.

    Args:
        code: Code that parses.
        tool_names: Names of the agent's tools.
    """
    tree = ast.parse(code)
    if not tree.body or _calls(tree, {"final_answer"}):
        return None
    last = tree.body[-1]
    value = _answer_of(last, _calls(tree, {*tool_names, "open"}), tool_names)
    if value is None:
        return None
    lines = code.split("\n")
    expression = ast.get_source_segment(code, value)
    head = lines[: last.lineno - 1]
    tail = lines[last.end_lineno :]
    return "\n".join([*head, f"final_answer({expression})", *tail]).rstrip()


def _answer_of(last: ast.stmt, reads: bool, tool_names: set[str]) -> ast.expr | None:
    """The expression that the last statement offers as the answer, or None."""
    if not isinstance(last, ast.Expr) or isinstance(last.value, ast.Constant):
        return None
    value = last.value
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
        return value
    if value.func.id in tool_names:
        return None
    if value.func.id != "print":
        return value
    single = len(value.args) == 1 and not value.keywords
    if single and not isinstance(value.args[0], ast.Starred) and not reads:
        return value.args[0]
    return None


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def _calls(tree: ast.AST, names: set[str]) -> bool:
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names
        for node in ast.walk(tree)
    )


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
    """`text` without the notes that `with_note` put before it (a repair's, and the one on
    a small model's drafts, `agents.small_model.vote`): its first lines that start with "Note: ".

    Args:
        text: A step's observations.
    """
    while text.startswith(_NOTES_START):
        text = text.partition("\n")[2]
    return text
