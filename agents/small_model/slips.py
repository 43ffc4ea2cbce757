"""Idioms of other languages that a small model writes in Python, rewritten where the meaning
is beyond doubt.

A tiny model has seen more maths notation and JavaScript than it can keep apart from Python:
it writes `13^2` for 13 squared (XOR in Python: 15, silently wrong), `"ab".repeat(3)` and
`"abc".reverse()` (AttributeErrors). Each rule rewrites only the exact unambiguous form: `^`
between two number literals (nobody means XOR there), and `.repeat(n)` or `.reverse()` called
on a string literal (Python strings have no such methods, so the code could only fail). It also opens an attached file
at the path the message gave when the code names the file under another folder (it mixes
the path of a worked example with the real one).
"""

from __future__ import annotations

import ast
import re
from pathlib import PurePosixPath

# A path as the app announces an attached file: "...; path: /folder/name.txt. First lines:".
_ANNOUNCED_PATH = re.compile(r"path: (/\S+?)\.?(?=\s|$)", re.MULTILINE)


def fix_slips(code: str) -> tuple[str, list[str]]:
    """Return (code, notes): the code with each slip rewritten, and one note per kind fixed.

    Args:
        code: Code that parses.
    """
    edits: list[tuple[ast.AST, str]] = []
    notes: list[str] = []
    tree = ast.parse(code)
    # In a chain (`2 ^ 3 ^ 2`) the reading is no longer beyond doubt: leave it alone.
    chained = {
        id(side)
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitXor)
        for side in (node.left, node.right)
    }
    for node in ast.walk(tree):
        if id(node) in chained:
            continue
        rewritten = _power(code, node) or _repeat(code, node) or _reverse(code, node)
        if rewritten is not None:
            edits.append((node, rewritten[0]))
            if rewritten[1] not in notes:
                notes.append(rewritten[1])
    if not edits:
        return code, []
    lines = code.split("\n")
    # Later edits first, so that earlier positions stay valid; nested slips are left to the
    # outer edit (its source already holds the inner slip, which stays as written).
    done: list[tuple[int, int, int, int]] = []
    for node, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        span = (node.lineno, node.col_offset, node.end_lineno or node.lineno, node.end_col_offset)
        if any(_inside(span, other) or _inside(other, span) for other in done):
            continue
        done.append(span)
        lines = _replace(lines, span, text)
    return "\n".join(lines), notes


def fix_paths(code: str, task: str | None) -> tuple[str, list[str]]:
    """Return (code, notes): each `open("...")` of an attached file's name under a wrong
    folder (or none) opened at the path the task announced for it.

    Args:
        code: Code that parses.
        task: The task, with the app's note about attached files.
    """
    announced = _ANNOUNCED_PATH.findall(task or "")
    by_name: dict[str, list[str]] = {}
    for path in announced:
        by_name.setdefault(PurePosixPath(path).name, []).append(path)
    lines, fixed = code.split("\n"), False
    calls = [node for node in ast.walk(ast.parse(code)) if _opens_a_literal(node)]
    for call in sorted(calls, key=lambda node: (node.lineno, node.col_offset), reverse=True):
        argument = call.args[0]
        written = argument.value
        matches = by_name.get(PurePosixPath(written).name, [])
        if written in announced or len(matches) != 1:
            continue
        span = (argument.lineno, argument.col_offset, argument.end_lineno, argument.end_col_offset)
        lines, fixed = _replace(lines, span, repr(matches[0])), True
    if not fixed:
        return code, []
    return "\n".join(lines), ["an attached file was opened at the path the message gives"]


def _opens_a_literal(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "open"
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    )


def _power(code: str, node: ast.AST) -> tuple[str, str] | None:
    """`a ^ b` with number literals on both sides, as `a ** b`."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitXor)):
        return None
    if not (_is_number(node.left) and _is_number(node.right)):
        return None
    left, right = ast.get_source_segment(code, node.left), ast.get_source_segment(code, node.right)
    return f"{left} ** {right}", "^ between numbers became ** (a power)"


def _string_method(node: ast.AST, name: str, arguments: int) -> ast.Call | None:
    """`node` if it is `"literal".name(...)` with that many positional arguments."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    value = node.func.value
    if node.func.attr != name or len(node.args) != arguments or node.keywords:
        return None
    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        return None
    return node


def _reverse(code: str, node: ast.AST) -> tuple[str, str] | None:
    """`"text".reverse()` (a list's method) as `"text"[::-1]`."""
    call = _string_method(node, "reverse", 0)
    if call is None:
        return None
    text = ast.get_source_segment(code, call.func.value)
    return f"{text}[::-1]", 'a string\'s .reverse() became "..."[::-1]'


def _repeat(code: str, node: ast.AST) -> tuple[str, str] | None:
    """`"text".repeat(n)` as `"text" * n`."""
    call = _string_method(node, "repeat", 1)
    if call is None:
        return None
    text = ast.get_source_segment(code, call.func.value)
    count = ast.get_source_segment(code, call.args[0])
    if not isinstance(call.args[0], (ast.Constant, ast.Name)):
        count = f"({count})"
    return f"{text} * {count}", 'a string\'s .repeat(n) became "..." * n'


def _is_number(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    )


def _inside(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    return (outer[0], outer[1]) <= (inner[0], inner[1]) and (inner[2], inner[3]) <= (
        outer[2],
        outer[3],
    )


def _replace(lines: list[str], span: tuple[int, int, int, int], text: str) -> list[str]:
    """`lines` with the source span (1-based lines, UTF-8 byte columns) replaced by `text`."""
    start_line, start_col, end_line, end_col = span
    first = lines[start_line - 1].encode()
    last = lines[end_line - 1].encode()
    joined = first[:start_col].decode() + text + last[end_col:].decode()
    return [*lines[: start_line - 1], *joined.split("\n"), *lines[end_line:]]
