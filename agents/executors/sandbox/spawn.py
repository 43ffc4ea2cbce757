"""Starting sandbox worker interpreters: the bootstrap, the spare kept ready, and killing.

A worker starts as a bare interpreter (`-I -S -B`) that imports only the sandbox's worker
side, then waits on its pipe for a setup message. One such spare is kept started ahead of
time, so a new worker only has to confine itself. Workers forked from the template
(`template`) are started through the same `Spawned`, with the template's `fork` as launch.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from agents.executors.sandbox.channel import (
    DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_MAX_VALUES,
    Channel,
)
from agents.executors.sandbox.environment import base_environment
from agents.executors.sandbox.pidns import popen_in_new_namespace

logger = logging.getLogger(__name__)

# Runs in the fresh interpreter: it makes `agents.executors.sandbox` importable without running
# the packages' `__init__.py` (they pull in the agent core and the host side), then hands
# over to the worker.
_PACKAGES = """\
import ctypes, os, sys, types
root, host = sys.argv[1], int(sys.argv[2])
ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG: SIGKILL when the host goes
# Gone before that took effect? (0: the parent is outside this worker's PID namespace; if
# the host went, its end of the pipe closed, and the wait for a setup ends the worker.)
if os.getppid() not in (host, 0):
    os._exit(3)
for name in ("agents", "agents.executors", "agents.executors.sandbox"):
    package = types.ModuleType(name)
    package.__path__ = [root + "/" + name.replace(".", "/")]
    sys.modules[name] = package
"""
BOOTSTRAP = (
    _PACKAGES
    + """\
from agents.executors.sandbox.worker import main
main(int(sys.argv[3]), int(sys.argv[4]))
"""
)
# The template process (see `template`): its control socket, the folders its imports come
# from and the modules it imports, as JSON.
TEMPLATE_BOOTSTRAP = (
    _PACKAGES
    + """\
import json
from agents.executors.sandbox.template_loop import main
main(int(sys.argv[3]), json.loads(sys.argv[4]), json.loads(sys.argv[5]))
"""
)

PROJECT_ROOT = str(Path(__file__).resolve().parents[3])


class WorkerStartError(RuntimeError):
    """The worker process could not start or confine itself.

    Args:
        message: What happened, in words.
        namespaces_refused: Why the kernel refused the worker its namespaces, when that is
            what ended it ("" otherwise; see `process.namespaces_refusal`).
    """

    def __init__(self, message: str, *, namespaces_refused: str = ""):
        super().__init__(message)
        self.namespaces_refused = namespaces_refused


class Spawned:
    """A started worker, imports done, waiting on its pipe for a setup message.

    Its stderr is a pipe the host drains into a short tail (for the host's log, never for
    the model), so the worker cannot fill a file with it.

    Args:
        max_message_bytes: Cap on any message from the worker.
        launch: Starts the worker given its ends of the pipes (requests in, replies out,
            stderr) and returns its process; default: a fresh interpreter (`interpreter`).
            The host closes its copies of those ends once `launch` returns.
    """

    def __init__(self, max_message_bytes: int, launch: Launch | None = None):
        to_worker_r, to_worker_w = os.pipe()
        from_worker_r, from_worker_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        try:
            self.proc = (launch or interpreter)(to_worker_r, from_worker_w, stderr_w)
        except BaseException:
            for fd in (to_worker_w, from_worker_r, stderr_r):
                os.close(fd)
            raise
        finally:
            for unused in (stderr_w, to_worker_r, from_worker_w):
                os.close(unused)
        os.set_blocking(to_worker_w, False)  # the host never blocks on a stuck worker
        os.set_blocking(from_worker_r, False)
        self.channel = Channel(
            from_worker_r, to_worker_w, max_message_bytes, max_values=DEFAULT_MAX_VALUES
        )
        self.stderr = StderrTail(stderr_r)


Launch = Callable[[int, int, int], Any]


def interpreter(read_fd: int, write_fd: int, stderr_fd: int) -> subprocess.Popen[bytes]:
    """Start a bare interpreter (`-I -S -B`) that runs the worker on these pipe ends.

    Args:
        read_fd: The worker's end of the request pipe.
        write_fd: The worker's end of the reply pipe.
        stderr_fd: Where its stderr goes.
    """
    command = [
        sys.executable,
        "-I",
        "-S",
        "-B",
        "-c",
        BOOTSTRAP,
        PROJECT_ROOT,
        str(os.getpid()),
        str(read_fd),
        str(write_fd),
    ]
    return start_process(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=stderr_fd,
        pass_fds=(read_fd, write_fd),
        env=base_environment(),
        cwd="/",
        start_new_session=True,  # its own process group; host Ctrl-C is not for it
    )


_SPAWNER: list[ThreadPoolExecutor] = []
_SPAWNER_LOCK = threading.Lock()


def start_process(
    command: list[str], *, new_pid_namespace: bool = True, **options: Any
) -> subprocess.Popen[bytes]:
    """Start a worker (or the template) from one long-lived thread. A worker's parent-death
    signal fires when the thread that started it ends; this thread lives as long as the app.

    Args:
        command: The program and its arguments.
        new_pid_namespace: Start it as pid 1 of a PID namespace of its own (see `pidns`).
        options: Passed to `subprocess.Popen`.
    """
    with _SPAWNER_LOCK:
        if not _SPAWNER:
            _SPAWNER.append(ThreadPoolExecutor(1, thread_name_prefix="sandbox-spawner"))
    start = popen_in_new_namespace if new_pid_namespace else subprocess.Popen
    try:
        future = _SPAWNER[0].submit(start, command, **options)
    except RuntimeError:  # the interpreter is shutting down: no new workers
        raise WorkerStartError("the app is shutting down") from None
    return future.result()


class StderrTail:
    """The last few KB a worker wrote to its stderr pipe (read without blocking).

    Args:
        fd: The host's (read) end of the pipe.
        keep: How many bytes to keep.
    """

    def __init__(self, fd: int, keep: int = 4096):
        self.fd, self.keep, self.tail = fd, keep, bytearray()
        os.set_blocking(fd, False)

    def drain(self) -> None:
        """Read what is waiting (at most 4 MB) and keep only the end."""
        for _ in range(64):
            try:
                chunk = os.read(self.fd, 65536) if self.fd >= 0 else b""
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self.tail = (self.tail + chunk)[-self.keep :]

    def text(self) -> str:
        self.drain()
        return " ".join(self.tail.decode(errors="replace").split())

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class _SparePool:
    """Keeps one spare interpreter started ahead of time, so a new worker only has to confine
    itself. Spares hold no user data: setup (folder, environment, limits) comes on demand."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spare: Spawned | None = None
        self.registered = False

    def take(self, max_message_bytes: int) -> Spawned:
        with self.lock:
            spare, self.spare = self.spare, None
        if spare is not None and spare.proc.poll() is not None:
            _discard(spare)
            spare = None
        if spare is None:
            spare = Spawned(max_message_bytes)
        spare.channel.max_message_bytes = max_message_bytes
        threading.Thread(target=self.refill, daemon=True).start()
        return spare

    def ready(self) -> bool:
        """True while a spare interpreter is started and waiting to be taken."""
        return self.spare is not None

    def refill(self) -> None:
        with self.lock:
            if not self.registered:
                atexit.register(self.clear)
                self.registered = True
            if self.spare is None:
                try:
                    self.spare = Spawned(DEFAULT_MAX_MESSAGE_BYTES)
                except (WorkerStartError, OSError) as error:  # e.g. the app is exiting
                    logger.debug("No spare sandbox worker: %s", error)

    def clear(self) -> None:
        with self.lock:
            spare, self.spare = self.spare, None
        if spare is not None:
            _discard(spare)


SPARES = _SparePool()


def _discard(spawned: Spawned) -> None:
    spawned.channel.close()  # EOF: a waiting spare exits by itself
    kill_group(spawned.proc)
    spawned.proc.wait()
    spawned.stderr.close()


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the worker's whole process group (it leads its own session)."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
