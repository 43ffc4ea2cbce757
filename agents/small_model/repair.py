"""The small model's own repairs, after the generic syntax fix (`agents.loop.repair`).

A tiny model writes another language's idiom where Python means something else, opens an
attached file under a worked example's folder, uses `math.sqrt` without `import math`, and
leaves the answer as a bare last expression (or a last `print`) instead of `final_answer(...)`.
Each would cost a step; the profile fixes them before the code runs, and notes each fix.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from agents.loop.repair import Repair, repair_code
from agents.small_model.slips import fix_paths, fix_slips

_VALUE_QUESTION = re.compile(
    r"\?|\b(what|how|which|who|when|compute|calculate|convert|count|find|give|tell|return|"
    r"evaluate|sum|reverse|sort)\b",
    re.IGNORECASE,
)
_NOT_A_VALUE = re.compile(r"\b(plot|draw|chart|save|write (it )?to|create a file)\b", re.IGNORECASE)
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


def small_repair(code: str, task: str | None = None, tool_names: Iterable[str] = ()) -> Repair:
    """The generic syntax fix, then the small model's own fixes.

    Args:
        code: The code the model wrote.
        task: The task, to tell whether it asks for a value.
        tool_names: Tools whose bare call is left alone (the model wants to see the result).
    """
    repair = repair_code(code)
    try:
        ast.parse(repair.code)
    except (SyntaxError, ValueError):
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


def _calls(tree: ast.AST, names: set[str]) -> bool:
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names
        for node in ast.walk(tree)
    )
