"""`python app.py` stops on SIGTERM as on Ctrl+C (`kill PID`, systemd, supervisors): the server,
the conversations and the store are closed, and the process exits with status 0."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from smolui.observability.server import AppServer
from tests.e2e.harness import free_port
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
STOPPED = "stopped: the server, the conversations and the store are closed"


def _ready(url: str, process: subprocess.Popen) -> bool:
    """Whether /readyz answers 200 (fails at once when the app has exited)."""
    assert process.poll() is None, f"app.py exited with {process.returncode}"
    try:
        return httpx.get(url, timeout=10).status_code == 200
    except httpx.TransportError:
        return False


@pytest.mark.slow  # starts app.py (gradio) in its own process
def test_app_py_stops_gracefully_on_sigterm(tmp_path: Path):
    port, data = free_port(), tmp_path / "data"
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", SMOLUI_LOG_LEVEL="INFO")
    options = ["--model", "scripted:demo", "--executor", "local", "--port", str(port),
               "--data-dir", str(data), "--upload-folder", str(tmp_path / "uploads"),
               "--no-find-local-servers"]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "app.py", *options], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        ready = f"http://127.0.0.1:{port}/readyz"
        wait_for(lambda: _ready(ready, process), "app.py answers /readyz", timeout=180, poll=0.3)
        process.send_signal(signal.SIGTERM)
        _, errors = process.communicate(timeout=120)
    finally:
        if process.poll() is None:  # it ignored SIGTERM: the test fails, nothing is left running
            process.kill()
            process.communicate(timeout=30)
    assert process.returncode == 0, errors
    assert STOPPED in errors, errors
    assert "Traceback" not in errors, errors
    from smolui.store import open_store

    store = open_store(data)  # the database opens (and migrates) cleanly after the stop
    try:
        assert store.list("nobody") == []
    finally:
        store.close()


def test_wait_returns_on_sigterm_and_closes_the_server():
    """In-process: SIGTERM in the main thread ends `AppServer.wait` as Ctrl+C does, and the
    handler that was there before is put back."""
    from fastapi import FastAPI

    port = free_port()
    server = AppServer(FastAPI(), "127.0.0.1", port).start()
    before = signal.getsignal(signal.SIGTERM)
    sent = threading.Event()

    def send_sigterm() -> None:
        try:
            wait_for(lambda: signal.getsignal(signal.SIGTERM) != before, "wait took SIGTERM")
        except AssertionError:
            server.close()  # no handler: SIGTERM would end pytest itself; end the wait instead
            return
        sent.set()
        os.kill(os.getpid(), signal.SIGTERM)

    sender = threading.Thread(target=send_sigterm, daemon=True)
    sender.start()
    server.wait()
    sender.join(timeout=30)
    assert sent.is_set(), "AppServer.wait did not handle SIGTERM"
    assert signal.getsignal(signal.SIGTERM) == before, "the previous handler is put back"
    server.close()  # waits for the server's end, which `wait` only asked for
    with pytest.raises(httpx.TransportError):
        httpx.get(f"http://127.0.0.1:{port}/", timeout=10)  # the server is closed
