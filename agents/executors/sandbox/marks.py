"""What a rollback of variables cannot undo, detected in the sandbox worker.

Retry gives every variable its value at the checkpoint, but code can also change the
interpreter itself: start background threads, install import hooks, replace builtins.
`interpreter_marks` notes those at a checkpoint and `changes_since` names what differs at
rollback; the host then restarts the worker with the checkpoint's plain values
(`plain_values`). Changes inside modules (a patched function) are not detected.
Standard library only: it runs in the worker.
"""

from __future__ import annotations

import builtins
import sys
import threading
import types
from typing import Any

from agents.executors.values import TAG, encode_value

Marks = dict[str, Any]


def interpreter_marks(
    namespace_builtins: dict[str, Any], own_threads: set[int] | None = None
) -> Marks:
    """What the interpreter looks like now, in ids (cheap; nothing is copied deeply).

    Args:
        namespace_builtins: The builtins dict the code's namespace uses.
        own_threads: Idents of the worker's own threads (the live output's), left out.
    """
    own = own_threads or set()
    return {
        "background threads": {t.ident for t in threading.enumerate() if t.ident not in own},
        "import hooks": {id(hook) for hook in (*sys.meta_path, *sys.path_hooks) if _foreign(hook)},
        # `print` is the worker's own, replaced at every step to capture output.
        "builtins": {n: id(v) for n, v in namespace_builtins.items() if n != "print"},
        "the builtins module": {name: id(value) for name, value in vars(builtins).items()},
    }


def changes_since(before: Marks, after: Marks) -> list[str]:
    """Names of what changed between two `interpreter_marks` (new threads only count)."""
    changed = []
    for key, old in before.items():
        new = after.get(key)
        if key == "background threads":
            if new - old:
                changed.append(f"{len(new - old)} background thread(s)")
        elif key == "import hooks":
            if new - old:
                changed.append(f"{len(new - old)} import hook(s)")
        elif new != old:
            changed.append(f"changed {key}")
    return changed


def _foreign(hook: Any) -> bool:
    """A hook defined by the code itself, not by an imported library (six, for one, adds a
    hook when it is imported): its class does not come from a module in `sys.modules`."""
    plain = isinstance(hook, (type, types.FunctionType))  # classes, functions (path hooks)
    owner = getattr(hook, "__module__", None) if plain else type(hook).__module__  # any import hook
    return owner not in sys.modules


def plain_values(namespace: dict[str, Any]) -> tuple[Any, list[str]]:
    """The namespace's plain values (numbers, text, containers, bytes, images), encoded,
    and the names of the others (functions, modules, objects) that cannot be carried over.

    Args:
        namespace: The code's variables.
    """
    kept, lost = {}, []
    for name, value in namespace.items():
        if name.startswith("__"):
            continue
        plain = not callable(value) and type(value).__name__ != "module"
        tree = encode_value(value) if plain else None
        if plain and _is_plain(tree):
            kept[name] = tree
        else:
            lost.append(name)
    return kept, sorted(lost)


def _is_plain(tree: Any) -> bool:
    if isinstance(tree, list):
        return all(_is_plain(item) for item in tree)
    if isinstance(tree, dict):
        if tree.get(TAG) in ("repr", "pickle"):
            return False
        return all(_is_plain(item) for item in tree.values())
    return True
