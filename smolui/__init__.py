"""smolui: the Gradio chat app around the agent core.

`import smolui` stays light: gradio is imported only when `GradioUI` or `stream_to_gradio`
is first used.
"""

from __future__ import annotations

import importlib
from typing import Any

# name -> module that defines it; loaded on first attribute access.
_LAZY = {
    "GradioUI": "smolui.app.gradio_ui",
    "stream_to_gradio": "smolui.app.gradio_ui",
    "Settings": "smolui.app.settings",
    "settings_from_args": "smolui.app.settings",
    "SessionRegistry": "smolui.sessions",
    "TurnView": "smolui.turns.view",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'smolui' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_LAZY))


__all__ = list(_LAZY)
