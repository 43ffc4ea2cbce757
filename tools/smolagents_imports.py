"""Run code written for smolagents (Hub tools, saved agents) against this project.

Such code says `from smolagents import Tool` (or `from smolagents.tools import Tool`). The
loader runs it with an `__import__` that answers `smolagents` and its submodules with
stand-in modules whose names resolve to ours (`tools`, then `agents`, then `smolui`). Nothing
named smolagents is installed or put in `sys.modules`: other code is unaffected.
"""

from __future__ import annotations

import builtins
import importlib
import types
from typing import Any

# Where smolagents' public names live here, searched in order.
_OUR_PACKAGES = ("tools", "agents", "smolui")
_ROOT = "smolagents"


def _resolve(module_name: str, attribute: str) -> Any:
    for package in _OUR_PACKAGES:
        try:
            return getattr(importlib.import_module(package), attribute)  # why: name by string
        except AttributeError:
            continue
    if attribute.isidentifier() and attribute.islower():
        return stand_in(f"{module_name}.{attribute}")  # a submodule, e.g. smolagents.tools
    raise ImportError(
        f"cannot import name {attribute!r} from {module_name!r}: this project has no "
        "equivalent of it (see the README's 'Porting from smolagents' table)."
    )


def stand_in(module_name: str) -> types.ModuleType:
    """A module object for `smolagents[.sub]` whose attributes are this project's names.

    Args:
        module_name: "smolagents" or one of its submodules' dotted names.
    """
    module = types.ModuleType(module_name, "smolagents names, resolved to this project's")

    def lookup(attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return _resolve(module_name, attribute)

    module.__getattr__ = lookup  # type: ignore[attr-defined]  # PEP 562 module attributes
    return module


def _import(name: str, globals_=None, locals_=None, fromlist=(), level: int = 0) -> Any:
    if level == 0 and (name == _ROOT or name.startswith(_ROOT + ".")):
        # `import smolagents.x` binds the top name; `from smolagents.x import y` the module.
        return stand_in(name if fromlist else _ROOT)
    return builtins.__import__(name, globals_, locals_, fromlist, level)


def smolagents_builtins() -> dict[str, Any]:
    """Builtins for a module whose code imports from smolagents (set as its `__builtins__`)."""
    namespace = dict(vars(builtins))
    namespace["__import__"] = _import
    return namespace
