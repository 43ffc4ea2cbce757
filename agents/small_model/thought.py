"""The Python expression a small model's thought spells out, as a fallback for its code.

The worked examples (`agents/prompts/examples/small_code.yaml`) teach a thought that restates
the task in the code's terms: "12% of 45 is 12 / 100 * 45." A 135M model often gets that
sentence right and then writes other code under it (`"apple pie".count("p")` in the
thought, `final_answer(count(1))` in the code). `thought_expression` finds the longest
stretch of the thought that is a self-contained Python expression computing something (an
operator, a call, an index), which `agents.small_model.vote` tries when a draft's code fails.
"""

from __future__ import annotations

import ast
import re

_THOUGHT = re.compile(r"^\s*Thought:\s*(.*)$", re.MULTILINE)
# Names an expression in a thought may use: builtins and modules a task needs, nothing of
# the agent's state (a thought's expression stands alone).
_NAMES = frozenset(
    (
        "abs", "all", "any", "bool", "divmod", "float", "int", "len", "max", "min", "pow",
        "range", "round", "sorted", "str", "sum", "reversed", "list", "set", "tuple",
        "math", "datetime", "statistics",
    )
)  # fmt: skip
_COMPUTES = (ast.BinOp, ast.UnaryOp, ast.Call, ast.Subscript)
_REFUSED = (ast.Lambda, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Starred)
_TRAILING = ".,;:!?"
_MAX_WORDS = 40


def thought_expression(text: str) -> str | None:
    """The longest self-contained expression that computes something in the answer's
    thought line, or None.

    Self-contained: it uses only literals, the names of common builtins and modules, and
    names bound inside it (a comprehension's variable). Computing: its outermost node is an
    operator, a call or an index (a bare number is no working). A comparison is refused at
    the top (`45 is 12 / 100 * 45` parses, and means nothing).

    Args:
        text: A model answer in the step format ("Thought: ..." then the code).
    """
    match = _THOUGHT.search(text)
    if match is None:
        return None
    words = match.group(1).split()[:_MAX_WORDS]
    best: str | None = None
    for start in range(len(words)):
        for end in range(len(words), start, -1):
            if best is not None and end - start <= len(best.split()):
                break
            candidate = " ".join(words[start:end]).rstrip(_TRAILING)
            if _computes(candidate):
                best = candidate
                break
    return best


def _computes(candidate: str) -> bool:
    if not candidate or not any(char in candidate for char in "+-*/%()[]"):
        return False
    try:
        tree = ast.parse(candidate, mode="eval")
    except (SyntaxError, ValueError):
        return False
    body = tree.body
    if not isinstance(body, _COMPUTES) or isinstance(body, ast.Compare):
        return False
    if isinstance(body, ast.UnaryOp) and isinstance(body.operand, ast.Constant):
        return False  # -5 is a number, not working
    bound = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    for node in ast.walk(tree):
        if isinstance(node, _REFUSED):
            return False
        if isinstance(node, ast.Name) and node.id not in _NAMES and node.id not in bound:
            return False
    return True
