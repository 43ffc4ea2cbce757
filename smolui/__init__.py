"""smolui: the Gradio chat app around the agent core.

`import smolui` stays light: gradio is imported only when `GradioUI` or `stream_to_gradio`
is first used.
"""

from __future__ import annotations

from tools.lazy_exports import lazy_exports

# name -> module that defines it; loaded on first attribute access.
_LAZY = {
    "GradioUI": "smolui.app.gradio_ui",
    "stream_to_gradio": "smolui.app.streaming",
    "Settings": "smolui.app.settings",
    "settings_from_args": "smolui.app.settings",
    "SessionRegistry": "smolui.sessions",
    "TurnView": "smolui.turns.view",
}


__getattr__, __dir__ = lazy_exports("smolui", _LAZY, globals())  # lazy exports


__all__ = list(_LAZY)
