"""Run one snippet of model-written Python against a persistent namespace.

Shared by every executor (in-process or in the sandbox worker): it captures `print`
output under a size cap, returns the last expression's value, turns `final_answer(...)`
into a result, and applies the import policy.
"""

from __future__ import annotations

import ast
import builtins
import io
from collections import deque
from typing import Any

BASE_AUTHORIZED_IMPORTS = (
    "math",
    "cmath",
    "random",
    "statistics",
    "itertools",
    "collections",
    "datetime",
    "time",
    "re",
    "json",
    "unicodedata",
    "queue",
    "stat",
    "functools",
    "operator",
    "string",
    "decimal",
    "fractions",
    "typing",
    "dataclasses",
    "heapq",
    "bisect",
    "copy",
    "textwrap",
    "enum",
    # the scientific stack (installed with the app; see the "Data analysis" README section)
    "numpy",
    "pandas",
    "matplotlib",
    "PIL",
)

DEFAULT_MAX_LOG_CHARS = 20_000


class FinalAnswerSignal(BaseException):
    """Raised by `final_answer(...)` in model code; carries the answer out of `exec`."""

    def __init__(self, value: Any):
        super().__init__("final_answer")
        self.value = value


class ImportNotAllowed(ImportError):
    """The code imported a module outside the authorized list."""


class BoundedLog(io.StringIO):
    """A text buffer that keeps the head and tail of what is written past a cap."""

    def __init__(self, limit: int = DEFAULT_MAX_LOG_CHARS):
        super().__init__()
        self.limit = limit
        self.dropped = 0
        self._tail: deque[str] = deque()
        self._tail_chars = 0

    def write(self, text: str) -> int:
        size = len(text)
        room = self.limit - self.tell()
        if room > 0:
            super().write(text[:room])
            text = text[room:]
        if text:
            self.dropped += len(text)
            self._tail.append(text)
            self._tail_chars += len(text)
            while self._tail_chars > self.limit // 4 and len(self._tail) > 1:
                self._tail_chars -= len(self._tail.popleft())
        return size

    def text(self) -> str:
        head = self.getvalue()
        if not self.dropped:
            return head
        tail = "".join(self._tail)[-(self.limit // 4) :]
        return f"{head}\n[... {self.dropped - len(tail)} characters of output cut ...]\n{tail}"


def authorized_roots(additional: list[str] | tuple[str, ...] | None) -> set[str] | None:
    """The module roots code may import; None means everything (`"*"`)."""
    extra = list(additional or [])
    if "*" in extra:
        return None
    return (
        {m.split(".")[0] for m in (*BASE_AUTHORIZED_IMPORTS, *extra)}
        | {m for m in extra if not m.endswith(".*")}
        | {m[:-2] for m in extra if m.endswith(".*")}
    )


def import_allowed(module: str, roots: set[str] | None) -> bool:
    if roots is None:
        return True
    parts = module.split(".")
    return any(".".join(parts[:i]) in roots for i in range(1, len(parts) + 1))


def check_imports(tree: ast.AST, roots: set[str] | None) -> None:
    """Refuse imports outside the policy, before anything runs."""
    if roots is None:
        return
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        for name in names:
            if not import_allowed(name, roots):
                raise ImportNotAllowed(
                    f"Import of '{name}' is not allowed. Authorized imports: "
                    f"{', '.join(sorted(roots))}."
                )


def compile_snippet(code: str) -> tuple[ast.Module, Any, Any]:
    """Parse code; return the tree, the body's code object and the last expression's."""
    tree = ast.parse(code, mode="exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        # The expression keeps the parser's locations; `Expression` itself has none to fix.
        last = compile(ast.Expression(tree.body.pop().value), "<agent code>", "eval")
    body = compile(tree, "<agent code>", "exec")
    tree.body.append(ast.Pass())  # keep the tree usable for checks
    return tree, body, last


def run_snippet(code: str, namespace: dict[str, Any], roots: set[str] | None) -> tuple[Any, bool]:
    """Run code in `namespace`; return `(value, is_final_answer)`. Exceptions propagate."""
    tree, body, last = compile_snippet(code)
    if "import" in code:  # an import statement needs the keyword: no walk for most steps
        check_imports(tree, roots)
    try:
        exec(body, namespace)
        value = eval(last, namespace) if last is not None else None
    except FinalAnswerSignal as signal:
        return signal.value, True
    return value, False


def make_print(log: BoundedLog):
    """A `print` that writes to the step's log instead of stdout."""

    def captured_print(*args: Any, sep: str = " ", end: str = "\n", **_: Any) -> None:
        log.write(sep.join(str(a) for a in args) + end)

    return captured_print


def final_answer_function(answer: Any = None) -> None:
    raise FinalAnswerSignal(answer)


def guarded_import(roots: set[str] | None):
    """An `__import__` that applies the policy at run time too (for `__import__` calls)."""
    real_import = builtins.__import__

    def checked(name: str, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002
        if level == 0 and not import_allowed(name, roots):
            raise ImportNotAllowed(f"Import of '{name}' is not allowed.")
        return real_import(name, globals, locals, fromlist, level)

    return checked


def is_pil_image(value: Any) -> bool:
    return any(
        c.__module__.startswith("PIL.") and c.__name__ == "Image" for c in type(value).__mro__
    )


def format_exception(error: BaseException) -> str:
    """`TypeName: message`, with the line of agent code where it happened when known."""
    line = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<agent code>":
            line = tb.tb_lineno
        tb = tb.tb_next
    if isinstance(error, SyntaxError):
        line = error.lineno
    where = f" (line {line})" if line else ""
    return f"{type(error).__name__}{where}: {error}"
