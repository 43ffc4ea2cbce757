"""Run inside the app image: the sandbox's isolation report and one real code run, as JSON.

`python -m tests.deploy.isolation_probe` (the image holds the whole checkout) makes a
`SandboxExecutor` the way the app makes one (its folder and an upload folder under the data
folder), runs code that tries what the layers are there to stop, and prints one JSON object:
the app's uid, the isolation report and what each attempt came to ("allowed", or the
exception that refused it). For tests/deploy/container_isolation.py; nothing here runs at
import.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

# Each attempt is one thing a visitor's code might try against the app or its machine; the
# last is the code's own work, which must be allowed.
CODE = """
import os, socket

def attempt(call):
    try:
        call()
    except Exception as error:
        return type(error).__name__
    return "allowed"

def connect():
    socket.create_connection(("127.0.0.1", app_port), timeout=5).close()

def fork():
    if os.fork() == 0:
        os._exit(0)

def write_outside():
    with open(os.path.join(os.path.dirname(app_file), "iso-written.txt"), "w") as file:
        file.write("x")

def own_work():
    with open("own.txt", "w") as file:
        file.write("mine")
    assert open("own.txt").read() == "mine"

{
    "connect to the app's port": attempt(connect),
    "signal the app's process": attempt(lambda: os.kill(app_pid, 0)),
    "read its environment": attempt(lambda: open(f"/proc/{app_pid}/environ").read()),
    "read the app's files": attempt(lambda: open(app_file).read()),
    "write outside its folder": attempt(write_outside),
    "start a process": attempt(fork),
    "its own work": attempt(own_work),
}
"""
OWN_WORK = "its own work"


def probe(data: Path) -> dict[str, object]:
    """The isolation report and the attempts' outcomes, from a sandbox made as the app does.

    Args:
        data: The app's data folder (the image's volume).
    """
    from agents.executors.sandbox import SandboxExecutor

    uploads = data / "uploads" / "iso-probe"
    uploads.mkdir(parents=True, exist_ok=True)
    secret = data / "iso-probe-secret.txt"
    secret.write_text("the app's own file")
    # A port the app listens on: a connection that got through would be accepted.
    listener = socket.create_server(("127.0.0.1", 0))
    # A process of the app's user to reach, never pid 1 (which in a worker's own PID
    # namespace names the worker itself, while the container's pid 1 is the app).
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    executor = SandboxExecutor(
        read_only_paths=[str(uploads)],
        scratch_dir=str(uploads.with_name(f".work-{uploads.name}")),
        additional_authorized_imports=["os", "socket"],
        spare_worker=False,
        timeout=120,
    )
    try:
        executor.send_variables(
            {"app_pid": process.pid, "app_file": str(secret), "app_port": listener.getsockname()[1]}
        )
        output = executor(CODE)
        report = executor.isolation
    finally:
        executor.close()
        listener.close()
        process.kill()
        process.wait()
    return {"app_uid": os.getuid(), "isolation": report, "attempts": output.output}


def main() -> None:
    data = Path(os.environ.get("SMOLUI_DATA_DIR") or "data")
    json.dump(probe(data), sys.stdout, default=str)


if __name__ == "__main__":
    main()
