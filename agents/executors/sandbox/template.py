"""Workers forked from a template process: the data stack imported once, shared by every worker.

An idle worker that had imported numpy, pandas and matplotlib itself held ~70 MB of
memory of its own (PSS), most of it the objects those imports built. A template process
(`template_loop`, one per app and preload list) imports them once, with no user data,
and forks each new worker; the pages stay shared until a worker writes to them
(copy-on-write). The child confines itself exactly as a spawned worker does, before any
agent code runs, so isolation is unchanged; see `template_loop` for what the child
cuts off (descriptors, random seeds, process group, parent).

The template is unconfined, like the app: it runs no agent code and its only input is
this host's control socket. It starts in the host's PID namespace (so the pids it
reports are the host's), dies with the app (a parent-death signal; and it exits when the
socket closes), and takes its workers with it (theirs). When it cannot start (not
Linux, a thread after the imports, a timeout) or has died, workers start as fresh
interpreters instead (`spawn`), as before.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from typing import Any

from agents.executors.sandbox.environment import base_environment, package_paths
from agents.executors.sandbox.spawn import (
    PROJECT_ROOT,
    TEMPLATE_BOOTSTRAP,
    StderrTail,
    WorkerStartError,
    kill_group,
    start_process,
)

logger = logging.getLogger(__name__)

START_TIMEOUT = 120.0  # seconds for the imports (a cold disk, a busy machine)
REQUEST_TIMEOUT = 15.0  # seconds for a fork or a reap
_REPLY_BYTES = 4096


class TemplateUnavailable(RuntimeError):
    """The template could not start, or stopped answering: start a fresh interpreter."""


class ForkedProcess:
    """A worker forked by the template, as the host handles it: the part of
    `subprocess.Popen` the sandbox uses. The host is not its parent, so it watches a pidfd
    for its end and asks the template for its exit code.

    Args:
        template: The template that forked it (and reaps it).
        pid: Its pid (in the host's PID namespace).
        pidfd: A pidfd on it, handed over by the template.
    """

    def __init__(self, template: Template, pid: int, pidfd: int):
        self.template, self.pid, self.pidfd = template, pid, pidfd
        self.returncode: int | None = None
        self._lock = threading.Lock()  # the watch and the executor may both poll

    def poll(self) -> int | None:
        if self.returncode is None and self._ended(0):
            self._reap()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not self._ended(timeout):
                raise subprocess.TimeoutExpired(f"sandbox worker {self.pid}", timeout or 0)
            self._reap()
        return self.returncode  # type: ignore[return-value]

    def kill(self) -> None:
        with self._lock:
            if self.returncode is None:
                try:
                    signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
                except OSError:  # gone already
                    pass

    def _ended(self, timeout: float | None) -> bool:
        try:  # a pidfd is readable once its process has exited
            ready, _, _ = select.select([self.pidfd], [], [], timeout)
        except (OSError, ValueError):  # closed meanwhile: reaped by another thread
            return True
        return bool(ready)

    def _reap(self) -> None:
        with self._lock:
            if self.returncode is None:
                self.returncode = self.template.reap(self.pid)
                os.close(self.pidfd)
                self.pidfd = -1


class Template:
    """A started template process and the host's end of its control socket.

    Args:
        modules: The modules it imports for every worker.
        sys_path: The folders it imports them from.
        start_timeout: Seconds it has to import them and say it is ready.

    Raises:
        TemplateUnavailable: It could not start, or refused (e.g. a thread after the imports).
    """

    def __init__(
        self, modules: list[str], sys_path: list[str], start_timeout: float = START_TIMEOUT
    ):
        self.modules = list(modules)
        self.lock = threading.Lock()  # one request at a time on the socket
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        stderr_r, stderr_w = os.pipe()
        self.stderr = StderrTail(stderr_r)
        self.proc: subprocess.Popen[bytes] | None = None
        # matplotlib writes its font list while it imports; no worker may see this folder.
        config = tempfile.mkdtemp(prefix="smolui-template-")
        try:
            try:
                self.proc = start_process(
                    self._command(theirs.fileno(), sys_path),
                    new_pid_namespace=False,  # pids it reports are the host's
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=stderr_w,
                    pass_fds=(theirs.fileno(),),
                    env={**base_environment(), "MPLCONFIGDIR": config},
                    cwd="/",
                    start_new_session=True,
                )
            finally:  # only the template holds these ends now: its exit is an EOF here
                theirs.close()
                os.close(stderr_w)
            self.control.settimeout(start_timeout)
            ready = self._receive()[0]
        except (OSError, WorkerStartError, ValueError) as error:
            self.close()
            raise TemplateUnavailable(f"{type(error).__name__}: {error}") from None
        finally:
            shutil.rmtree(config, ignore_errors=True)
        if ready.get("t") != "ready":
            reason = ready.get("error") or self.stderr.text()[-300:]
            self.close()
            raise TemplateUnavailable(f"the template refused to serve: {reason}")
        self.control.settimeout(REQUEST_TIMEOUT)
        self.address_space = int(ready.get("address_space") or 0)  # bytes a child starts with

    def fits(self, memory_mb: float | None) -> bool:
        """Whether a worker limited to `memory_mb` of address space has room to work when it
        starts with the template's: at least as much again free. (A worker that imports the
        data stack itself under a tight limit gets an ImportError and stays usable; a forked
        one would start with no room at all.)

        Args:
            memory_mb: The worker's address-space limit (None: none).
        """
        return not memory_mb or 2 * self.address_space <= memory_mb * 1024 * 1024

    def _command(self, control_fd: int, sys_path: list[str]) -> list[str]:
        return [
            sys.executable,
            "-I",
            "-S",
            "-B",
            "-c",
            TEMPLATE_BOOTSTRAP,
            PROJECT_ROOT,
            str(os.getpid()),
            str(control_fd),
            json.dumps(sys_path),
            json.dumps(self.modules),
        ]

    @property
    def pid(self) -> int:
        return self.proc.pid if self.proc is not None else -1

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def fork(self, read_fd: int, write_fd: int, stderr_fd: int) -> ForkedProcess:
        """Fork a worker on these pipe ends (a `spawn.Launch`).

        Args:
            read_fd: The worker's end of the request pipe.
            write_fd: The worker's end of the reply pipe.
            stderr_fd: Where its stderr goes.

        Raises:
            TemplateUnavailable: The template is gone or did not fork.
        """
        with self.lock:
            self.stderr.drain()  # a template blocked on a full stderr pipe would fork nothing
            try:
                socket.send_fds(self.control, [b'{"t": "fork"}'], [read_fd, write_fd, stderr_fd])
                reply, fds = self._receive(1)
            except (OSError, ValueError) as error:
                raise TemplateUnavailable(f"{type(error).__name__}: {error}") from None
        if reply.get("t") != "forked" or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            raise TemplateUnavailable(f"the template did not fork: {reply.get('error')}")
        return ForkedProcess(self, int(reply["pid"]), fds[0])

    def reap(self, pid: int) -> int:
        """The exit code of a worker it forked that has ended (-SIGKILL when it cannot say:
        the template itself is gone, and its workers went with it).

        Args:
            pid: The worker's pid.
        """
        with self.lock:
            try:
                self.control.send(json.dumps({"t": "reap", "pid": pid}).encode())
                status = self._receive()[0].get("status")
            except (OSError, ValueError):
                status = None
        return int(status) if isinstance(status, int) else -signal.SIGKILL

    def _receive(self, max_fds: int = 0) -> tuple[dict[str, Any], list[int]]:
        data, fds, _, _ = socket.recv_fds(self.control, _REPLY_BYTES, max_fds)
        if not data:
            raise ConnectionError(f"the template is gone ({self.stderr.text()[-300:]})")
        return json.loads(data), fds

    def close(self) -> None:
        """Stop the template (its workers get SIGKILL from their parent-death signal)."""
        self.control.close()  # EOF: it exits by itself
        if self.proc is not None:
            kill_group(self.proc)
            self.proc.wait()
        self.stderr.close()


class Templates:
    """The app's templates, one per preload list, started when a worker first needs one."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started: dict[tuple[str, ...], Template] = {}
        self.failed: dict[tuple[str, ...], str] = {}
        self.registered = False

    def template_for(self, modules: list[str]) -> Template | None:
        """The running template for `modules` (started now if there is none), or None when
        none can run here: then workers start as fresh interpreters.

        Args:
            modules: The preload list of the workers it will fork.
        """
        if not sys.platform.startswith("linux") or not modules:
            return None
        key = tuple(modules)
        with self.lock:
            template = self.started.get(key)
            if template is not None and not template.alive():
                logger.warning("The sandbox template stopped; starting a new one")
                template.close()
                self.started.pop(key)
                template = None
            if template is None and key not in self.failed:
                template = self._start(key)
            return template

    def _start(self, key: tuple[str, ...]) -> Template | None:
        if not self.registered:
            atexit.register(self.close)
            self.registered = True
        try:
            template = Template(list(key), package_paths())
        except TemplateUnavailable as error:
            self.failed[key] = str(error)
            logger.warning("Sandbox workers start without a template (%s)", error)
            return None
        self.started[key] = template
        return template

    def give_up(self, modules: list[str], reason: str) -> None:
        """Stop the template for `modules` and start no other: it failed a fork (a kernel
        without pidfds, a protocol error). Workers start as interpreters from now on.

        Args:
            modules: Its preload list.
            reason: What failed, for the log.
        """
        key = tuple(modules)
        with self.lock:
            template = self.started.pop(key, None)
            self.failed[key] = reason
        if template is not None:
            template.close()

    def pids(self) -> list[int]:
        """The running templates' pids."""
        with self.lock:
            return [t.pid for t in self.started.values() if t.alive()]

    def close(self) -> None:
        """Stop every template (and so every worker forked from one)."""
        with self.lock:
            started, self.started = list(self.started.values()), {}
            self.failed.clear()
        for template in started:
            template.close()


TEMPLATES = Templates()
