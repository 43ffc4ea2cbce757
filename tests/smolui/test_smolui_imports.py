"""`import smolui` stays light: no gradio until the UI is used."""

from __future__ import annotations

import subprocess
import sys


def test_importing_smolui_does_not_import_gradio():
    code = (
        "import sys, smolui, smolui.render.messages, smolui.turns.view, smolui.sessions, smolui.handlers.chat, "
        "smolui.handlers.conversations, smolui.app.settings, smolui.render.export\n"
        "from smolui import GradioUI, stream_to_gradio\n"
        "assert callable(GradioUI) and callable(stream_to_gradio)\n"
        "print('gradio' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
