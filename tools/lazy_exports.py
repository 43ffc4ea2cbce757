"""Package attributes imported on first access, so importing a package stays light.

It lives in `tools`, the lowest layer (it imports neither `agents` nor `smolui`), so that
`tools`, `agents` and `smolui` can all use it without pulling one another in.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(
    package: str, table: dict[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level `__getattr__` and `__dir__` for `package` (PEP 562).

    Args:
        package: The package's name, for the error message.
        table: Exported name -> module that defines it.
        namespace: The package's `globals()`; a loaded name is cached there.
    """

    def get(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)  # why: a name looked up by string
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted(list(namespace) + list(table))

    return get, names
