"""The app as the other ways in meet it: served on a free loopback port with a scripted agent,
and API keys made by the command line the README shows."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agents import CodeAgent, ScriptedModel

ROOT = Path(__file__).resolve().parents[2]
ANSWER = "Thought: compute it.\n<code>\nx = 6 * 7\nprint(x)\nfinal_answer(x)\n</code>"
TURNS_PER_HOUR = 3


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def served_app(folder: Path, **settings_changes: Any) -> Iterator[tuple[Any, str]]:
    """A running app whose agents answer `ANSWER`, limited to `TURNS_PER_HOUR` per user.

    Args:
        folder: Its data folder.
        **settings_changes: More settings (e.g. `mcp=True`).

    Yields:
        The `GradioUI` and its base URL.
    """
    from smolui.app.gradio_ui import GradioUI
    from smolui.app.settings import Settings

    settings = Settings(model="scripted", executor="local", host="127.0.0.1", port=_free_port(),
                        upload_folder=str(folder / "uploads"), data_dir=str(folder),
                        turns_per_hour=TURNS_PER_HOUR, **settings_changes)  # fmt: skip

    def make_agent() -> CodeAgent:
        return CodeAgent([], ScriptedModel([ANSWER], loop=True), executor_type="local",
                         verbosity_level=-1)  # fmt: skip

    ui = GradioUI(make_agent, settings=settings, model_label=lambda: "scripted")
    ui.launch(prevent_thread_lock=True, quiet=True)
    try:
        yield ui, f"http://127.0.0.1:{settings.port}/"
    finally:
        ui.close()


def make_key(folder: Path, user: str, command: str = "smolui.auth.keys") -> str:
    """A key made by the command line (its last line is the key).

    Args:
        folder: The app's data folder.
        user: Whose key.
        command: The module run with `python -m`.
    """
    done = subprocess.run([sys.executable, "-m", command, "--data-dir", str(folder),
                           "add", user], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=True)  # fmt: skip
    return done.stdout.strip().splitlines()[-1]
