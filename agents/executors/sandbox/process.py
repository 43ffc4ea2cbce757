"""A sandbox worker process as the host sees it: set up, watched, interrupted, killed."""

from __future__ import annotations

import errno
import logging
import os
import re
import signal
import subprocess
import time
from typing import Any

from agents.executors.sandbox.channel import Channel, ChannelTimeout
from agents.executors.sandbox.namespaces import ID_MAPS_FAILED
from agents.executors.sandbox.spawn import (
    SPARES,
    Spawned,
    StderrTail,
    WorkerStartError,
    kill_group,
)
from agents.executors.sandbox.template import TEMPLATES, ForkedProcess, TemplateUnavailable

logger = logging.getLogger(__name__)

LOST = "The sandbox was restarted: all variables, imports and functions defined so far were lost"

# What the kernel answers when it will not let a process use a user namespace it made
# (e.g. AppArmor's restriction of unprivileged user namespaces, or a seccomp profile):
# namespaces are unavailable here. Any other error (too many open files, no memory) is not
# a verdict on namespaces, and retrying with them is right.
_REFUSALS = {errno.EPERM, errno.EACCES, errno.EINVAL, errno.ENOSPC, errno.EUSERS, errno.ENOSYS}
_ID_MAPS_ERROR = re.compile(re.escape(ID_MAPS_FAILED) + r": \[Errno (\d+)\] ([^\n]*)")


class WorkerLost(Exception):
    """The worker had to be replaced; carries the message for the model."""


class WorkerProcess:
    """A confined worker and the host's end of its pipes.

    Args:
        setup: The setup message (folder, environment, limits, paths, import policy, caps).
        max_message_bytes: Cap on any message from the worker.
        use_spare: Take the spare interpreter if one is ready (and start the next one).
        use_template: Fork it from the template that preloaded the setup's `preload`
            modules (see `template`), when one can run here.
    """

    def __init__(
        self,
        setup: dict[str, Any],
        max_message_bytes: int,
        use_spare: bool = True,
        use_template: bool = True,
    ):
        self.setup = setup
        self.max_message_bytes = max_message_bytes
        self.use_spare = use_spare
        self.use_template = use_template
        self.proc: subprocess.Popen[bytes] | ForkedProcess | None = None
        self.channel: Channel | None = None
        self.stderr: StderrTail | None = None
        self.isolation: dict[str, Any] = {}
        self._stat_fd = -1  # /proc/<pid>/stat, kept open: read after every step

    @property
    def pid(self) -> int:
        return self.proc.pid if self.proc else -1

    def start(self, timeout: float = 15.0) -> dict[str, Any]:
        """Get an interpreter, send the setup, wait until confined; return the isolation report.

        Raises WorkerStartError, saying whether the kernel refused the worker its namespaces
        (a timeout or a crash for any other reason is not that)."""
        spawned = self._forked() or (
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
            # No agent code has run in this worker yet: its stderr is the sandbox's own.
            refused = (
                namespaces_refusal(self.stderr_tail(4096)) if self.setup.get("namespaces") else ""
            )
            self.kill()
            raise WorkerStartError(
                f"{type(error).__name__}: {error}; {reason}",
                namespaces_refused=refused,
            ) from None
        if ready.get("t") != "ready":
            self.kill()
            raise WorkerStartError(f"unexpected first message {ready.get('t')!r}")
        self.isolation = {
            **(ready.get("isolation") or {}),
            "forked_from_template": isinstance(self.proc, ForkedProcess),
        }
        self._stat_fd = _open_stat(self.pid)
        return self.isolation

    def _forked(self) -> Spawned | None:
        """A worker forked from the template, or None when there is none to fork from."""
        modules = [str(m) for m in self.setup.get("preload") or []]
        template = TEMPLATES.template_for(modules) if self.use_template else None
        if template is None or not template.fits(self.setup["limits"].get("memory_mb")):
            return None
        try:
            return Spawned(self.max_message_bytes, launch=template.fork)
        except TemplateUnavailable as error:
            logger.warning("Sandbox workers not forked from now on (%s)", error)
            TEMPLATES.give_up(modules, str(error))
            return None

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

    def pause(self) -> None:
        """Freeze every thread of the worker between requests (SIGSTOP): code left running in
        a background thread must not spend CPU or fill the disk while no step is watched."""
        self._signal(signal.SIGSTOP)

    def resume(self) -> None:
        """Let a paused worker run again (SIGCONT; harmless when it runs)."""
        self._signal(signal.SIGCONT)

    def _signal(self, number: int) -> None:
        if self.alive():
            try:
                os.kill(self.pid, number)
            except OSError:  # gone meanwhile: the next request finds out
                pass

    def kill(self) -> None:
        """Stop the worker for good and close the pipes."""
        if self.proc is not None:
            kill_group(self.proc)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if self.stderr is not None:
            self.stderr.close()
        if self._stat_fd >= 0:
            os.close(self._stat_fd)
            self._stat_fd = -1

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
        """How many threads the worker runs (Linux only; None elsewhere, or once it is gone).

        Read after every step, so from `/proc/<pid>/stat` through a descriptor kept open
        since the start: about 10 us, where opening `/proc/<pid>/status` costs 90 us here.
        The descriptor stays bound to this process even if its pid is reused later."""
        if self._stat_fd < 0:
            return None
        try:
            fields = os.pread(self._stat_fd, 4096, 0).rsplit(b")", 1)[1].split()
            return int(fields[17])  # num_threads: field 20, the 18th after "(comm)"
        except (OSError, ValueError, IndexError):
            return None


def namespaces_refusal(stderr: str) -> str:
    """Why the kernel refused a worker its namespaces, read from the end of the stderr of a
    worker that stopped while it confined itself ("" when that is not what stopped it).

    Args:
        stderr: The end of the worker's stderr (whitespace runs made single spaces).
    """
    found = _ID_MAPS_ERROR.search(stderr)
    if found is None or int(found.group(1)) not in _REFUSALS:
        return ""
    return f"user namespace id maps refused: {found.group(2).strip()[:160]}"


def _open_stat(pid: int) -> int:
    """A descriptor on `/proc/<pid>/stat`, or -1 where there is none (not Linux)."""
    try:
        return os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return -1


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
