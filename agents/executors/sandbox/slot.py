"""The one worker of a `SandboxExecutor`: started on demand, given the executor's state,
replaced when lost, and asked things other than running code.

A worker starts from the spare interpreter when one is ready (see `spawn`) and is checked
against the isolation the executor requires. A start that fails for a passing reason (a
timeout on a loaded machine, a crash) is retried as it was, a few times, then is a clear
error. Only a kernel that refuses the worker its namespaces (see `process.namespaces_refusal`,
or the worker's own report) leaves this executor's workers without them: that downgrade is
logged, kept in the isolation report (`downgraded`), and refused under `require_isolation`.
A root app's worker that did not get its uid of its own (see `identity`) is reported the
same way: missing in the "level", logged once, refused under `require_isolation`.

A new worker is told the tool names, the variables and any values kept for it after a
Retry (see `SandboxExecutor.rollback`), so a replacement carries on where the last one
stopped, minus what the code built itself. Requests carry an id and a deadline; a worker
that fails one is dropped, and the next execution starts a fresh one. Running code is
`Execution`'s part.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from agents.errors import AgentConfigError
from agents.executors.sandbox.channel import ChannelClosed, ChannelTimeout, ProtocolViolation
from agents.executors.sandbox.identity import app_is_root
from agents.executors.sandbox.process import WorkerLost, WorkerProcess
from agents.executors.sandbox.spawn import WorkerStartError
from agents.executors.sandbox.watch import WorkerWatch
from agents.executors.values import encode_value

logger = logging.getLogger(__name__)

LAYERS = ("process", "clean_env", "rlimits", "landlock", "seccomp")
START_ATTEMPTS = 3  # starts tried (the same way) before a passing failure is an error
START_TIMEOUT = 15.0  # seconds a worker has to say it is confined and ready
_WATCH_INTERVAL = 0.25  # seconds between limit checks while a request is answered


class WorkerSlot:
    """Holds the current worker of one executor (None until needed, or after a loss).

    Args:
        setup: The setup message each new worker gets (the executor may change it).
        max_message: Cap on any message from the worker, in bytes.
        spare_worker: Take the spare interpreter when one is ready.
        fork_from_template: Fork workers from the template that preloaded the data stack
            (see `template`), when one can run here.
        require_isolation: Refuse a worker that lacks a layer of `LAYERS`, or the namespaces
            the setup asks for.
        timeout: Seconds a request may take.
        scratch: The code's folder (named in the error when no worker can start).
        watch: Checks the worker's limits while it answers a request (None: no checks).
    """

    def __init__(
        self,
        setup: dict[str, Any],
        max_message: int,
        *,
        spare_worker: bool,
        require_isolation: bool,
        fork_from_template: bool = True,
        timeout: float,
        scratch: str,
        watch: WorkerWatch | None = None,
    ):
        self.setup = setup
        self.max_message = max_message
        self.spare_worker = spare_worker
        self.fork_from_template = fork_from_template
        self.require_isolation = require_isolation
        self.timeout = timeout
        self.scratch = scratch
        self.watch = watch
        self.worker: WorkerProcess | None = None
        self.isolation: dict[str, Any] = {}
        self.used = False  # has the worker run code (is it no longer fresh)?
        self.lost_in_request = False  # a worker that had run code was dropped by a request
        self.tool_names: list[str] = []
        self.variables: dict[str, Any] = {}
        self.restore: dict[str, Any] = {}  # plain values for the next worker (after Retry)
        self.holder: list[WorkerProcess | None] = [None]  # what the finalizer must stop
        self._request_id = 0  # each request carries one; replies with another are stale
        self._warned = False
        self._asked_namespaces = bool(setup.get("namespaces"))
        self.start_timeout = START_TIMEOUT
        self.downgrade = ""  # why workers start without the namespaces asked for, if they do

    def ensure(self) -> WorkerProcess:
        """The running worker, or a new one, set up and told the executor's state.

        Raises AgentConfigError when no worker can start, or one lacks a required layer.
        """
        if self.worker is not None and self.worker.alive():
            return self.worker
        self.discard()
        worker, report = self._start()
        self.worker = self.holder[0] = worker
        self.used = False
        self.isolation = self._summarize(report)
        if self.tool_names:
            self.request({"t": "tools", "names": self.tool_names})
        if self.variables:
            self.request({"t": "vars", "values": encode_value(self.variables, trusted=True)})
        if self.restore:
            restore, self.restore = self.restore, {}
            self.request({"t": "vars", "values": encode_value(restore, trusted=True)})
        return worker

    def _start(self) -> tuple[WorkerProcess, dict[str, Any]]:
        """A started worker and its isolation report, after at most `START_ATTEMPTS` tries
        (plus one without namespaces when the kernel refuses them)."""
        failures = 0
        while True:
            worker = WorkerProcess(
                self.setup, self.max_message, self.spare_worker, self.fork_from_template
            )
            try:
                return worker, worker.start(self.start_timeout)
            except WorkerStartError as error:
                if error.namespaces_refused and self.setup.get("namespaces"):
                    self._fall_back(error.namespaces_refused)
                    continue
                failures += 1
                if failures >= START_ATTEMPTS:
                    raise AgentConfigError(
                        f"The code sandbox could not start ({failures} tries; the last: "
                        f"{error}). Check that {self.scratch} is writable and the machine is "
                        "not overloaded; executor_type='local' runs code unconfined (trusted "
                        "models only)."
                    ) from None
                logger.warning(
                    "Sandbox worker did not start (%s); trying again as it was (%d of %d)",
                    error,
                    failures + 1,
                    START_ATTEMPTS,
                )

    def _fall_back(self, reason: str) -> None:
        """Start this executor's workers without namespaces from now on (the kernel refuses
        them), or refuse under `require_isolation`."""
        if self.require_isolation:
            raise AgentConfigError(
                f"The sandbox cannot give its workers namespaces here ({reason}); pass "
                "namespaces=False to run without them, or drop require_isolation."
            )
        self.setup["namespaces"] = False
        self.downgrade = reason
        logger.warning(
            "Sandbox workers start without namespaces from now on (%s): no uid of their own, "
            "no user, IPC or network namespace, no kernel thread limit",
            reason,
        )

    def discard(self) -> None:
        """Kill the worker (if any); the next `ensure` starts a fresh one."""
        if self.worker is not None:
            self.worker.kill()
            self.worker = None

    def set_tools(self, names: list[str]) -> None:
        """The tool stubs every worker gets; the running one gets them now.

        Args:
            names: The tools' names.
        """
        self.tool_names = names
        if self.worker is not None:
            self.request({"t": "tools", "names": names})

    def add_variables(self, variables: dict[str, Any]) -> None:
        """Values every worker gets; the running one gets them now.

        Args:
            variables: Name -> value (plain data, images, reprs; see `values`).
        """
        self.variables.update(variables)
        if self.worker is not None:
            self.request({"t": "vars", "values": encode_value(variables, trusted=True)})

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a request and return the worker's reply ({} when the worker was lost).

        Args:
            message: The request (`t` and its fields); its id is added here.
        """
        worker = self.worker
        if worker is None or worker.channel is None:
            return {}
        deadline = time.monotonic() + self.timeout
        ident = self.next_id()
        worker.resume()
        try:
            worker.channel.send({**message, "id": ident}, deadline)
            stale = 0  # bytes of stale frames: each was parsed, at the host's expense
            while True:
                reply = self._receive(worker, deadline)
                if reply.get("id") == ident:
                    if self.used:  # code ran: its threads must not run between requests
                        worker.pause()
                    return reply
                # else a stale frame (e.g. one the code forged earlier): dropped
                stale += worker.channel.last_frame_bytes
                if stale > self.max_message:
                    raise ProtocolViolation("stale frames past the size of a message")
        except (ChannelClosed, ChannelTimeout, ProtocolViolation, WorkerLost):
            self.lost_in_request = self.lost_in_request or self.used
            self.discard()  # the next execution starts a fresh one and resends state
        return {}

    def _receive(self, worker: WorkerProcess, deadline: float) -> dict[str, Any]:
        """The worker's next frame, its limits checked while it comes: the code's threads
        run during a request, and code can run in it too (a hostile `__repr__` when Retry
        encodes the variables, an import hook's class when a checkpoint looks at it), up to
        the request's timeout. Raises WorkerLost past a limit."""
        while True:
            try:
                return worker.channel.receive(min(deadline, time.monotonic() + _WATCH_INTERVAL))
            except ChannelTimeout:
                if time.monotonic() >= deadline:
                    raise
            if self.watch is not None:
                self.watch.check(worker)

    def next_id(self) -> int:
        """A new request id (an execution's frames carry one too)."""
        self._request_id += 1
        return self._request_id

    def _summarize(self, report: dict[str, Any]) -> dict[str, Any]:
        missing = [layer for layer in LAYERS if not report.get(layer)]
        summary = {**report}
        if self._asked_namespaces and not report.get("namespaces"):
            # Asked for but not had: the kernel refused them (now or at an earlier start).
            missing.append("namespaces")
            notes = report.get("notes") if isinstance(report.get("notes"), dict) else {}
            why = self.downgrade or str(notes.get("namespaces") or "not on this platform")
            summary["downgraded"] = f"without namespaces: {why}"
        if self.setup.get("namespaces") and app_is_root() and not report.get("own_uid"):
            # Asked for (a root app's workers switch to an id of their own, see `identity`)
            # but not had, e.g. EMFILE while the id-mapped mounts were made.
            missing.append("own_uid")
        summary["missing"] = missing
        summary["level"] = "full" if not missing else f"partial (missing: {', '.join(missing)})"
        if missing and self.require_isolation:
            self.discard()
            raise AgentConfigError(
                f"The sandbox lacks {', '.join(missing)} here ({report.get('notes')}); "
                "run on Linux >= 5.13 with libseccomp and user namespaces, pass "
                "namespaces=False, or drop require_isolation."
            )
        if missing and not self._warned:
            self._warned = True
            downgraded = summary.get("downgraded")
            logger.warning(
                "Code sandbox runs without %s: %s",
                ", ".join(missing),
                f"{downgraded}; {report.get('notes')}" if downgraded else report.get("notes"),
            )
        return summary
