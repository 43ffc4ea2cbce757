"""The code's variables as an executor's `state` (smolagents' `python_executor.state`).

Only values count: tools, functions, classes, modules and private names are left out. A
worker in another process sends its values the way it sends outputs (plain data as is,
anything else as its repr), so `state` shows what can cross the boundary.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

# Run in the executor; the comprehension's own names do not leak into the code's variables.
STATE_PROBE = (
    "{_k: _v for _k, _v in globals().items() if not _k.startswith('_') "
    "and not callable(_v) and type(_v).__name__ != 'module'}"
)


def user_variables(namespace: dict[str, Any]) -> dict[str, Any]:
    """The values in an in-process namespace, as `STATE_PROBE` selects them.

    Args:
        namespace: The code's globals.
    """
    return {
        name: value
        for name, value in namespace.items()
        if not name.startswith("_")
        and not callable(value)
        and not isinstance(value, types.ModuleType)
    }


def probe_state(run: Callable[[str], Any]) -> dict[str, Any]:
    """Ask an out-of-process executor for its variables.

    Args:
        run: The executor's `__call__` (code -> `CodeOutput`).
    """
    output = run(STATE_PROBE).output
    return dict(output) if isinstance(output, dict) else {}
