"""Step callbacks: accepted as a list or as a dict from step class to callbacks."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


def normalize_callbacks(callbacks: Any) -> list[tuple[type | None, Callable]]:
    """`[(step class or None for all, callback)]` from a list or a dict of callbacks."""
    if not callbacks:
        return []
    if isinstance(callbacks, dict):
        out = []
        for kind, funcs in callbacks.items():
            funcs = funcs if isinstance(funcs, (list, tuple)) else [funcs]
            out += [(kind, f) for f in funcs]
        return out
    return [(None, f) for f in callbacks]


def takes_agent(callback: Callable) -> bool:
    """Whether a callback accepts the agent (an `agent` parameter or **kwargs)."""
    try:
        params = inspect.signature(callback).parameters
    except (TypeError, ValueError):
        return False
    return "agent" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
