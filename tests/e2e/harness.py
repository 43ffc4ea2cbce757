"""The app under test: the real GradioUI on loopback, with scripted models per conversation."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# A gate the test forgets fails the step after this long, instead of holding the app forever.
GATE_TIMEOUT_S = 300.0


class Gate:
    """Holds a step's code "running" until the test opens it.

    Scripted code calls the host tool `wait_for_test(name)`; the app runs in the test's
    process, so the tool waits on this gate's event.

    Args:
        name: What the code passes to `wait_for_test`.
    """

    def __init__(self, name: str):
        self.name = name
        self.reached = threading.Event()  # the code is waiting now
        self.opened = threading.Event()

    def open(self) -> None:
        """Let the waiting code go on."""
        self.opened.set()


class ScriptedApp:
    """Runs GradioUI in this process; each new conversation gets an agent whose model
    replays `self.script()` (set by each test before it opens a page). Its code may call
    the host tool `wait_for_test(name)` to stay running until the test opens `gate(name)`.

    Args:
        upload_root: Where conversations' uploads go.
        executor: "sandbox" (the real default) or "local".
        **settings: Overrides for `Settings`.
    """

    def __init__(self, upload_root: Path, executor: str = "sandbox", **settings: Any):
        os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
        from smolui.app.settings import Settings

        self.port = free_port()
        settings.setdefault(
            "data_dir", str(Path(upload_root).parent / f"{Path(upload_root).name}-data")
        )
        self.settings = Settings(
            model="scripted", executor=executor, host="127.0.0.1", port=self.port,
            upload_folder=str(upload_root), concurrency=8, **settings,
        )  # fmt: skip
        self.script: Callable[[], list[Any]] = lambda: ["<code>\nfinal_answer('hello')\n</code>"]
        self.model_options: dict[str, Any] = {}
        self.agents: list[Any] = []
        self.gates: dict[str, Gate] = {}
        self._lock = threading.Lock()
        self.ui: Any = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def gate(self, name: str) -> Gate:
        """A new closed gate that scripted code waits on with `wait_for_test(name)`.

        Args:
            name: The gate's name in the scripted code.
        """
        gate = Gate(name)
        with self._lock:
            self.gates[name] = gate
        return gate

    def open_gates(self) -> None:
        """Open every gate, so no agent stays held after a test (even a failed one)."""
        with self._lock:
            gates = list(self.gates.values())
        for gate in gates:
            gate.open()

    def _wait_tool(self) -> Any:
        from tools import tool

        gates, lock = self.gates, self._lock

        @tool
        def wait_for_test(name: str) -> None:
            """Wait until the test opens the gate of this name (end-to-end tests only).

            Args:
                name: The gate's name.
            """
            with lock:
                gate = gates[name]
            gate.reached.set()
            if not gate.opened.wait(GATE_TIMEOUT_S):
                raise TimeoutError(f"the test never opened the gate {name!r}")
            # Returns nothing, as `time.sleep` does: a step whose code ends here shows no output.

        return wait_for_test

    def make_agent(self, upload_dir: Path) -> Any:
        from agents.loop.code_agent import CodeAgent
        from agents.models.scripted import ScriptedModel
        from agents.observability.console import LogLevel
        from tools.toolbox import app_tools

        model = ScriptedModel(self.script(), **self.model_options)
        from smolui.uploads.folders import work_folder

        executor_kwargs = (
            {"read_only_paths": [str(upload_dir)], "scratch_dir": str(work_folder(upload_dir))}
            if self.settings.executor == "sandbox"
            else {}
        )
        # The app's own tools (unit conversion, the document tools), as the real app gives.
        tools = [self._wait_tool(), *app_tools(upload_dir)]
        agent = CodeAgent(
            tools, model, executor_type=self.settings.executor,
            executor_kwargs=executor_kwargs, max_steps=self.settings.max_steps,
            stream_outputs=True, verbosity_level=LogLevel.OFF,
            additional_authorized_imports=["PIL", "PIL.*"],
        )  # fmt: skip
        with self._lock:
            self.agents.append(agent)
        return agent

    def start(self) -> ScriptedApp:
        from smolui.app.gradio_ui import GradioUI

        self.ui = GradioUI(
            self.make_agent, settings=self.settings, model_label=lambda: "scripted-test"
        )
        self.ui.launch(prevent_thread_lock=True, quiet=True)
        return self

    def stop(self) -> None:
        if self.ui is not None:
            self.ui.close()
