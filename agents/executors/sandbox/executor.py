"""`SandboxExecutor`: runs model-written code in a confined worker process, at native speed.

One worker per executor (so per agent), kept alive across steps and chat turns: variables,
imports and functions persist like in a notebook. The worker confines itself before any
agent code runs (rlimits, a uid of its own, own user, IPC, network and PID namespaces, no
capabilities, Landlock, a seccomp allow-list, clean environment; see `confine`). Tools run
here in the host: the worker only holds stubs that send calls over the pipe. The host
trusts nothing the worker enforces: it caps what comes back (`budget`), keeps a wall-clock
deadline that counts tool time, drops stale frames (every request carries an id; see
`execution`), and on timeout, crash, an unread tool reply, code that ignores Stop, or a
limit it enforces (disk, threads; see `watch`), kills and replaces the worker and tells
the model its variables were lost. Starting, replacing and asking the worker: `slot`."""

from __future__ import annotations

import logging
import tempfile
import threading
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError, AgentExecutionError
from agents.executors.base import CodeOutput
from agents.executors.preload import modules_to_preload
from agents.executors.python_runner import DEFAULT_MAX_LOG_CHARS, authorized_roots
from agents.executors.sandbox.budget import BudgetLimits, StepBudget
from agents.executors.sandbox.cleanup import remove_tree
from agents.executors.sandbox.environment import (
    default_read_only_paths,
    package_paths,
    session_environment,
)
from agents.executors.sandbox.execution import Execution, StopRequest
from agents.executors.sandbox.live import OutputCallback
from agents.executors.sandbox.process import LOST, WorkerLost, WorkerProcess
from agents.executors.sandbox.results import result_to_output
from agents.executors.sandbox.slot import WorkerSlot
from agents.executors.sandbox.watch import WorkerWatch, make_folder
from agents.executors.state import probe_state
from agents.executors.values import decode_value

logger = logging.getLogger(__name__)

# The isolation report before any worker started: which layers take effect is not known yet.
NOT_STARTED = {
    "process": True,
    "started": False,
    "level": "not started (the worker starts with the first code, or with start())",
}


class SandboxExecutor:
    """Runs code in a confined, persistent worker process. The default executor of `CodeAgent`.

    Args:
        additional_authorized_imports: Modules code may import besides the base list; `"*"`
            allows all. A policy for the model, not the security boundary.
        max_print_outputs_length: Cap on captured print output per execution, in characters.
        timeout: Wall-clock seconds one execution may take, tool calls included; tools
            get `max_tool_seconds` more between them.
        memory_limit_mb: Address-space limit of the worker (default 1 GB, for a shared
            server; raise it for big data).
        cpu_limit_s: CPU seconds a worker may use over its life before it is replaced.
        max_file_mb: Largest file the code may write.
        disk_quota_mb: Most the scratch folder may hold; beyond it the worker is replaced.
        max_files: Most entries the scratch folder may hold.
        max_threads: Most threads the worker may run.
        max_open_files: Most file descriptors the worker may hold.
        max_output_chars: Cap on the returned value's encoded size.
        max_image_mb: Cap on the images one execution may send back.
        max_images: Most images one execution may send the host (figures, displayed or
            returned images, images in tool arguments).
        max_image_pixels: Most pixels those images may have together; checked from each
            PNG's header by the host before it decodes anything.
        max_tool_seconds: Extra wall-clock time tool calls may take in one execution.
        stop_grace: Seconds an interrupted step has to stop before the worker is killed.
        tool_reply_timeout: Seconds a tool's reply may wait for the code to read it; then
            the worker is killed (a reply never read would block the host).
        read_only_paths: Folders the code may read (e.g. the session's upload folder).
        scratch_dir: The code's read-write working folder (default: a private temp folder).
        env: Extra environment variables for the worker (never put secrets here).
        require_isolation: Refuse to run unless every isolation layer is active.
        spare_worker: Keep one interpreter started ahead of time (shared by all executors of
            this process), so a new or replacement worker is ready in milliseconds.
        namespaces: Give each worker its own user, IPC and network namespaces and, when
            the app is root, an unprivileged uid of its own (Linux; in `isolation`, never
            fatal when the kernel refuses). Workers get a PID namespace of their own
            whenever the app is root, whatever this says (see `pidns`).
        preload_data_stack: Let a new worker import numpy, pandas and matplotlib while it
            waits for its first code (about 1 s of CPU and 90 MB, saved on the first plot).
        fork_from_template: With the data stack preloaded, fork workers from one template
            process per app that imported it once (see `template`): an idle worker then
            costs a few MB of its own instead of ~70. Isolation is the same; without a
            template (not Linux, or it cannot start) workers start as interpreters.
    """

    def __init__(
        self,
        additional_authorized_imports: list[str] | None = None,
        max_print_outputs_length: int | None = None,
        *,
        timeout: float = 30.0,
        memory_limit_mb: int = 1024,
        cpu_limit_s: int = 3600,
        max_file_mb: int = 64,
        disk_quota_mb: int = 512,
        max_files: int = 10_000,
        max_threads: int = 64,
        max_open_files: int = 256,
        max_output_chars: int = 1_000_000,
        max_image_mb: int = 32,
        max_images: int = 20,
        max_image_pixels: int = 40_000_000,
        max_tool_seconds: float = 300.0,
        stop_grace: float = 2.0,
        tool_reply_timeout: float = 5.0,
        read_only_paths: list[str] | tuple[str, ...] = (),
        scratch_dir: str | None = None,
        env: dict[str, str] | None = None,
        require_isolation: bool = False,
        spare_worker: bool = True,
        namespaces: bool = True,
        preload_data_stack: bool = True,
        fork_from_template: bool = True,
    ):
        if timeout <= 0 or memory_limit_mb < 64:
            raise AgentConfigError(
                "SandboxExecutor: timeout must be > 0 and memory_limit_mb >= 64."
            )
        self.timeout = float(timeout)
        self.memory_limit_mb = memory_limit_mb
        self.max_tool_seconds = float(max_tool_seconds)
        self.tool_reply_timeout = float(tool_reply_timeout)
        self._limits = BudgetLimits(
            max_log_chars=max_print_outputs_length or DEFAULT_MAX_LOG_CHARS,
            max_output_chars=max_output_chars,
            max_images=max_images,
            max_pixels=max_image_pixels,
        )
        self.require_isolation = require_isolation
        self._owns_scratch = scratch_dir is None
        self._own_dir = tempfile.mkdtemp(prefix="smolui-sandbox-") if self._owns_scratch else None
        self.scratch = scratch_dir or f"{self._own_dir}/scratch"
        make_folder(self.scratch)
        self._watch = WorkerWatch(
            self.scratch, self._owns_scratch, disk_quota_mb * 2**20, max_files, max_threads
        )
        self._stop = StopRequest(float(stop_grace))
        roots = authorized_roots(additional_authorized_imports)
        self._setup = {
            "t": "setup",
            "cwd": self.scratch,
            "env": session_environment(self.scratch, env),
            "sys_path": package_paths(),
            "limits": {
                "memory_mb": memory_limit_mb,
                "cpu_seconds": cpu_limit_s,
                "file_mb": max_file_mb,
                "open_files": max_open_files,
                "threads": max_threads,
            },
            "read_only": [*default_read_only_paths(), *map(str, read_only_paths)],
            "read_write": [self.scratch, "/dev/null"],
            "authorized_imports": None if roots is None else sorted(roots),
            "max_log_chars": max_print_outputs_length or DEFAULT_MAX_LOG_CHARS,
            "max_output_chars": max_output_chars,
            "max_image_bytes": max_image_mb * 1024 * 1024,
            "namespaces": namespaces,
            "preload": modules_to_preload(roots) if preload_data_stack else [],
        }
        self._read_only = list(self._setup["read_only"])
        self.spare_worker = spare_worker
        self._slot = WorkerSlot(
            self._setup,
            (max_output_chars * 4) + (max_image_mb * 2 * 1024 * 1024) + (1 << 20),
            spare_worker=spare_worker,
            require_isolation=require_isolation,
            fork_from_template=fork_from_template,
            timeout=self.timeout,
            scratch=self.scratch,
            watch=self._watch,
        )
        self._tools: dict[str, Any] = {}
        self._lock = threading.RLock()
        self._note: str | None = None  # told to the model with the next output
        self._closed = False  # a warm-up must not start a worker for a closed executor
        self._checkpoint: int | None = None  # pid of the worker holding it; 0: a fresh state
        self._finalizer = weakref.finalize(self, _cleanup, self._slot.holder, self._own_dir)

    # -- the CodeExecutor seam ---------------------------------------------------------------

    @property
    def isolation(self) -> dict[str, Any]:
        """Which layers confine the worker, as the last one to start reported them (the next
        starts the same way). Reading it starts nothing (`isinstance(x, CodeExecutor)` reads
        it): before the first worker, a report that says "not started"; `start()` first for
        the layers."""
        report = self._slot.isolation
        return dict(report) if report else dict(NOT_STARTED)

    @property
    def state(self) -> dict[str, Any]:
        """The code's variables, as far as they cross the boundary (others as their repr)."""
        return probe_state(self)

    def send_variables(self, variables: dict[str, Any]) -> None:
        with self._lock:
            self._slot.add_variables(variables)

    def send_tools(self, tools: dict[str, Any]) -> None:
        with self._lock:
            self._tools = {name: tool for name, tool in tools.items() if name != "final_answer"}
            self._slot.set_tools(sorted(self._tools))

    def __call__(self, code: str) -> CodeOutput:
        return self.run_reporting(code)

    def run_reporting(self, code: str, on_output: OutputCallback | None = None) -> CodeOutput:
        """Run one snippet, handing what it prints to `on_output` while it runs
        (`ReportsOutput`: throttled, the output so far each time)."""
        with self._lock:
            self._stop.pending = False
            self._closed = False
            worker = self._slot.ensure()
            if self._slot.lost_in_request:  # e.g. over a limit while it answered a checkpoint
                self._slot.lost_in_request = False
                self._note = f"[{LOST} before this step.]"
            self._slot.used = True
            budget = StepBudget(self._limits)
            try:
                result = self._execute(worker, code, budget, on_output)
                self._watch.check(worker)
                worker.pause()  # until the next request: no code runs unwatched
            except WorkerLost as lost:
                self._slot.discard()
                raise AgentExecutionError(str(lost), state_lost=True) from None
            except (KeyboardInterrupt, SystemExit, AgentExecutionError):
                self._slot.discard()  # the pipe may be mid-message: never reuse it
                raise
            except Exception as error:  # never a raw exception out of the agent's step
                self._slot.discard()
                logger.exception("Sandbox step failed in the host")
                raise AgentExecutionError(
                    f"The sandbox failed ({type(error).__name__}: {error}). {LOST}.",
                    state_lost=True,
                ) from None
        output = result_to_output(result, budget)
        if self._note:
            output.logs, self._note = f"{self._note}\n{output.logs}", None
        return output

    def reset(self) -> None:
        """Start over: a fresh worker (no variables, imports or patches) and an empty scratch."""
        with self._lock:
            self._slot.restore, self._note = {}, None
            self._slot.lost_in_request = False
            worker = self._slot.worker
            if worker is not None and not self._slot.used and worker.alive():
                return  # it has run nothing since it started (e.g. a warm-up): already fresh
            self._slot.discard()
            self._watch.empty_scratch()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._slot.discard()
            self._finalizer()

    # -- the rest of the seam ------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker now (otherwise it starts on first use)."""
        with self._lock:
            if self._closed:
                raise AgentConfigError("This executor was closed; running code reopens it.")
            self._slot.ensure()

    @property
    def running(self) -> bool:
        """True while a worker process is alive."""
        worker = self._slot.worker
        return worker is not None and worker.alive()

    def set_read_paths(self, paths: Sequence[str | Path]) -> None:
        """Let the code read these folders too, instead of those of the last call (for one
        agent serving conversation after conversation, each with its upload folder). Access
        is fixed when a worker starts: a change replaces the running one (variables lost).

        Args:
            paths: Folders the code may read; empty takes every grant back.
        """
        wanted = [*self._read_only, *map(str, paths)]
        with self._lock:
            if wanted != self._setup["read_only"]:
                self._setup["read_only"] = wanted
                self._slot.discard()

    def checkpoint(self) -> None:
        """Remember which value each variable name has now, for one `rollback`."""
        with self._lock:
            worker = self._slot.worker
            if worker is None or not self._slot.used:
                self._checkpoint = 0
            else:
                self._checkpoint = worker.pid
                self._slot.request({"t": "checkpoint"})

    def rollback(self) -> bool:
        """Give every name its value at the last `checkpoint`, unbind newer names (changes
        inside objects stay). False if there is no checkpoint or the worker was replaced."""
        with self._lock:
            mark, self._checkpoint = self._checkpoint, None
            if mark == 0:
                self.reset()
                return True
            worker = self._slot.worker
            if mark is None or worker is None or worker.pid != mark:
                return False
            reply = self._slot.request({"t": "rollback"})
            if reply.get("changed"):
                self._restart_after_rollback(reply)
            return self._slot.worker is worker

    def interrupt(self) -> None:
        """Stop the running step (it fails with "Interrupted"); variables are kept. Code that
        does not stop within `stop_grace` seconds (it ignores SIGINT) loses its worker."""
        self._stop.ask(self._slot.worker)

    @property
    def worker_pid(self) -> int | None:
        """The worker's process id (tells one worker from its replacement); None before."""
        worker = self._slot.worker
        return worker.pid if worker is not None else None

    def __enter__(self) -> SandboxExecutor:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    # -- Retry and one execution -------------------------------------------------------------

    def _restart_after_rollback(self, reply: dict[str, Any]) -> None:
        """The undone turn changed the interpreter (threads, import hooks, builtins): start a
        fresh worker with the checkpoint's plain values, and tell the model what was lost."""
        sent = reply.get("values") or {}
        try:  # from the worker: images are counted and checked like a step's
            values = decode_value(sent, image=StepBudget(self._limits).image)
        except (RecursionError, ValueError, TypeError):  # BudgetExceeded included
            values = {}
        keep = {"final_answer", "display", *self._tools}
        lost = [n for n in _texts(reply.get("lost")) if n not in keep]
        if not values and isinstance(sent, dict):
            lost += _texts(list(sent))
        changed = ", ".join(_texts(reply.get("changed"))[:5])
        self._slot.discard()
        self._slot.restore = values if isinstance(values, dict) else {}
        self._note = (
            f"[Retry: the undone turn had left {changed} in the sandbox, which restoring "
            "variables cannot undo, so the sandbox was restarted with the plain variables"
            + (f"; lost, to recreate: {', '.join(lost[:30])}" if lost else "")
            + ".]"
        )

    def _execute(
        self,
        worker: WorkerProcess,
        code: str,
        budget: StepBudget,
        on_output: OutputCallback | None,
    ) -> dict[str, Any]:
        """Run the code in the worker (see `Execution`); raises WorkerLost."""
        execution = Execution(
            worker,
            self._tools,
            budget,
            self._stop,
            self._watch,
            timeout=self.timeout,
            max_tool_seconds=self.max_tool_seconds,
            tool_reply_timeout=self.tool_reply_timeout,
            on_output=on_output,
        )
        return execution.run(code, self._slot.next_id())


def _texts(names: Any) -> list[str]:
    """Names or reasons the worker sent (untrusted): strings only, each cut short."""
    return [n[:80] for n in names if isinstance(n, str)] if isinstance(names, list) else []


def _cleanup(workers: list[WorkerProcess | None], folder: str | None) -> None:
    for worker in workers:
        if worker is not None:
            worker.kill()
    if folder is not None:
        remove_tree(folder)
