"""Sandbox worker processes, as the host sees them: spawned ahead of time, set up, watched, killed."""

from __future__ import annotations

import atexit
import logging
import os
import signal
import site
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from agents.executors.sandbox_protocol import (
    DEFAULT_MAX_MESSAGE_BYTES,
    Channel,
    ChannelTimeout,
)

logger = logging.getLogger(__name__)

# Runs in the fresh interpreter: it makes `agents.executors` importable without running
# `agents/__init__.py` (which pulls in the whole agent core), then hands over to the worker.
BOOTSTRAP = """\
import ctypes, os, sys, types
root, read_fd, write_fd, host = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG: SIGKILL when the host goes
if os.getppid() != host:  # the host went before that took effect
    os._exit(3)
for name in ("agents", "agents.executors"):
    package = types.ModuleType(name)
    package.__path__ = [root + "/" + name.replace(".", "/")]
    sys.modules[name] = package
from agents.executors.sandbox_worker import main
main(read_fd, write_fd)
"""

PROJECT_ROOT = str(Path(__file__).resolve().parents[2])

# System folders a Python process may need to read (shared libraries, time zones).
_SYSTEM_READ_ONLY = (
    "/usr/lib",
    "/usr/lib64",
    "/lib",
    "/lib64",
    "/usr/local/lib",
    "/usr/share/zoneinfo",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/mime.types",  # read by `mimetypes.init()` (openpyxl, so `pandas.read_excel`)
    "/dev/urandom",
    "/dev/random",
    "/dev/zero",
)


def package_paths() -> list[str]:
    """The site-packages folders of this interpreter (the worker starts without `site`)."""
    found = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    found += [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    return [p for p in dict.fromkeys(found) if os.path.isdir(p)]


def default_read_only_paths() -> list[str]:
    """The Python installation, its packages and the system libraries, nothing else."""
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    paths = [*sorted(prefixes), *package_paths(), *_SYSTEM_READ_ONLY]
    # A prefix of "/" or a home folder would open far more than the installation.
    too_wide = {"/", os.path.expanduser("~"), "/home", "/root"}
    return [p for p in dict.fromkeys(paths) if os.path.exists(p) and p not in too_wide]


def base_environment() -> dict[str, str]:
    """The environment a worker starts with: nothing from the host (no tokens, no keys)."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "MPLBACKEND": "Agg",
        # Math libraries otherwise start a thread per core at import, each with big buffers.
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def session_environment(scratch: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """What the worker adds at setup: its folder as HOME and TMPDIR, plus the caller's extras."""
    # matplotlib keeps its font list in a hidden folder, out of the code's sight in `ls`.
    mpl = os.path.join(scratch, ".matplotlib")
    return {"HOME": scratch, "TMPDIR": scratch, "MPLCONFIGDIR": mpl, **(extra or {})}


class WorkerStartError(RuntimeError):
    """The worker process could not start or confine itself."""


class Spawned:
    """A started interpreter, imports done, waiting on its pipe for a setup message.

    Its stderr is a pipe the host drains into a short tail (for the host's log, never for
    the model), so the worker cannot fill a file with it.

    Args:
        max_message_bytes: Cap on any message from the worker.
    """

    def __init__(self, max_message_bytes: int):
        to_worker_r, to_worker_w = os.pipe()
        from_worker_r, from_worker_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        command = [
            sys.executable,
            "-I",
            "-S",
            "-B",
            "-c",
            BOOTSTRAP,
            PROJECT_ROOT,
            str(to_worker_r),
            str(from_worker_w),
            str(os.getpid()),
        ]
        try:
            self.proc = _spawn(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr_w,
                pass_fds=(to_worker_r, from_worker_w),
                env=base_environment(),
                cwd="/",
                start_new_session=True,  # its own process group; host Ctrl-C is not for it
            )
        except BaseException:
            for fd in (to_worker_w, from_worker_r, stderr_r):
                os.close(fd)
            raise
        finally:
            for unused in (stderr_w, to_worker_r, from_worker_w):
                os.close(unused)
        os.set_blocking(to_worker_w, False)  # the host never blocks on a stuck worker
        os.set_blocking(from_worker_r, False)
        self.channel = Channel(from_worker_r, to_worker_w, max_message_bytes)
        self.stderr = StderrTail(stderr_r)


_SPAWNER: list[ThreadPoolExecutor] = []
_SPAWNER_LOCK = threading.Lock()


def _spawn(command: list[str], **options: Any) -> subprocess.Popen[bytes]:
    """Start a worker from one long-lived thread. A worker's parent-death signal fires when
    the thread that started it ends; this thread lives as long as the app does."""
    with _SPAWNER_LOCK:
        if not _SPAWNER:
            _SPAWNER.append(ThreadPoolExecutor(1, thread_name_prefix="sandbox-spawner"))
    try:
        future = _SPAWNER[0].submit(subprocess.Popen, command, **options)
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
    _kill_group(spawned.proc)
    spawned.proc.wait()
    spawned.stderr.close()


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the worker's whole process group (it leads its own session)."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()


class WorkerProcess:
    """A confined worker and the host's end of its pipes.

    Args:
        setup: The setup message (folder, environment, limits, paths, import policy, caps).
        max_message_bytes: Cap on any message from the worker.
        use_spare: Take the spare interpreter if one is ready (and start the next one).
    """

    def __init__(self, setup: dict[str, Any], max_message_bytes: int, use_spare: bool = True):
        self.setup = setup
        self.max_message_bytes = max_message_bytes
        self.use_spare = use_spare
        self.proc: subprocess.Popen[bytes] | None = None
        self.channel: Channel | None = None
        self.stderr: StderrTail | None = None
        self.isolation: dict[str, Any] = {}

    @property
    def pid(self) -> int:
        return self.proc.pid if self.proc else -1

    def start(self, timeout: float = 15.0) -> dict[str, Any]:
        """Get an interpreter, send the setup, wait until confined; return the isolation report."""
        spawned = (
            SPARES.take(self.max_message_bytes)
            if self.use_spare
            else Spawned(self.max_message_bytes)
        )
        self.proc, self.channel, self.stderr = spawned.proc, spawned.channel, spawned.stderr
        deadline = time.monotonic() + timeout
        try:
            self.channel.send(self.setup, deadline)
            ready = self._await_ready(deadline)
        except Exception as error:
            reason = self.exit_reason()
            self.kill()
            raise WorkerStartError(f"{type(error).__name__}: {error}; {reason}") from None
        if ready.get("t") != "ready":
            self.kill()
            raise WorkerStartError(f"unexpected first message {ready.get('t')!r}")
        self.isolation = dict(ready.get("isolation") or {})
        return self.isolation

    def _await_ready(self, deadline: float) -> dict[str, Any]:
        """The worker's first message; its stderr is drained meanwhile (a spare that wrote
        much while it waited would otherwise stay blocked on a full pipe)."""
        while True:
            try:
                return self.channel.receive(min(deadline, time.monotonic() + 0.1))
            except ChannelTimeout:
                if time.monotonic() >= deadline:
                    raise
                self.drain_stderr()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def interrupt(self) -> None:
        if self.alive():
            os.kill(self.pid, signal.SIGINT)

    def kill(self) -> None:
        """Stop the worker for good and close the pipes."""
        if self.proc is not None:
            _kill_group(self.proc)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if self.stderr is not None:
            self.stderr.close()

    def exit_reason(self) -> str:
        """Why the worker is gone, in words, for the model. The end of its stderr goes to the
        host's log only: the code controls it."""
        if self.proc is None:
            return "it never started"
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "it stopped answering"
        if code < 0:
            reason = _signal_reason(-code, self.setup.get("limits", {}))
        else:
            reason = f"it exited with status {code}"
        tail = self.stderr_tail()
        if tail:
            logger.warning(
                "Sandbox worker %s stopped (%s); its stderr ended: %s", self.pid, reason, tail
            )
        return reason

    def stderr_tail(self, limit: int = 600) -> str:
        """The end of what the worker wrote to its stderr (for the host's log)."""
        return self.stderr.text()[-limit:] if self.stderr is not None else ""

    def drain_stderr(self) -> None:
        """Empty the stderr pipe so a chatty worker never blocks on it (keeps the tail)."""
        if self.stderr is not None:
            self.stderr.drain()

    def thread_count(self) -> int | None:
        """How many threads the worker runs (Linux only; None elsewhere)."""
        try:
            with open(f"/proc/{self.pid}/status") as file:
                for line in file:
                    if line.startswith("Threads:"):
                        return int(line.split()[1])
        except (OSError, ValueError):
            return None
        return None

    def resident_mb(self) -> float | None:
        """Resident memory of the worker in MB (Linux only)."""
        try:
            with open(f"/proc/{self.pid}/status") as file:
                for line in file:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except (OSError, ValueError):
            return None
        return None


def _signal_reason(number: int, limits: dict[str, Any]) -> str:
    if number == signal.SIGXCPU:
        return f"it used up its CPU time budget ({limits.get('cpu_seconds')} s)"
    if number == signal.SIGSEGV:
        return "it crashed (segmentation fault; often recursion too deep for the C stack)"
    if number == signal.SIGKILL:
        return "it was killed (out of memory, or over its CPU time budget)"
    if number == signal.SIGSYS:
        return "it made a forbidden system call"
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = str(number)
    return f"it was stopped by signal {name}"
