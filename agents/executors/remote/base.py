"""`RemoteExecutor`: runs model-written code in a Jupyter kernel somewhere else.

The executor seam (`CodeExecutor`) on top of one kernel reached through a Jupyter gateway.
Subclasses say only where the gateway is (`_open_kernel`) and how the code is isolated
(`_where`); Docker, E2B and Modal provision a gateway first, then talk to it the same way.

Tools stay on the host. The kernel holds stubs (see `kernel_bridge`) that send each call
as an `input_request`; this side validates the arguments, runs the real tool and replies.
`final_answer(...)` is such a call too, and ends the step. Values coming back are decoded
without pickle. Uploads are copied into the kernel before the code that may read them.
A run past its timeout is interrupted through the gateway, then the kernel is restarted
and the model told its variables were lost; a gateway that goes away fails the step
clearly, and the next step starts a new kernel.
"""

from __future__ import annotations

import ast
import base64
import logging
import threading
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError, AgentExecutionError
from agents.executors.base import CodeOutput
from agents.executors.python_runner import (
    DEFAULT_MAX_LOG_CHARS,
    ImportNotAllowed,
    authorized_roots,
    check_imports,
)
from agents.executors.remote.execution import ExecutionRun, ExecutionTimeout, KernelDied, Outcome
from agents.executors.remote.gateway import GatewayError, GatewayKernel
from agents.executors.remote.prelude import prelude_code, vars_code
from agents.executors.remote.uploads import UploadSync
from agents.executors.tool_calls import run_tool_call
from agents.executors.values import decode_value
from agents.tool_spans import active_span

logger = logging.getLogger(__name__)

_LOST = "all variables, imports and functions defined so far were lost"
_SETUP_TIMEOUT_S = 60.0
_UPLOAD_PIECE_BYTES = 3 * 1024 * 1024


class RemoteExecutor:
    """Runs code in a remote Jupyter kernel that persists across steps, like a notebook.

    Args:
        additional_authorized_imports: Modules code may import besides the base list
            (checked on the host before sending; a policy, not the security boundary).
        max_print_outputs_length: Cap on captured output per execution, in characters.
        timeout: Wall-clock seconds one execution may take (time spent in tools excluded,
            up to `max_tool_seconds` more).
        max_tool_seconds: Most extra seconds tools may add to one execution.
        read_only_paths: Folders whose files are copied into the kernel before code runs
            (the conversation's uploads).
        max_upload_mb: Largest single file copied into the kernel.
        max_uploads_mb: Most megabytes copied into one kernel in all.
    """

    kind = "remote"

    def __init__(
        self,
        additional_authorized_imports: list[str] | None = None,
        max_print_outputs_length: int | None = None,
        *,
        timeout: float = 30.0,
        read_only_paths: list[str] | tuple[str, ...] = (),
        max_upload_mb: float = 50.0,
        max_uploads_mb: float = 200.0,
        max_tool_seconds: float = 300.0,
    ):
        if timeout <= 0 or max_upload_mb <= 0 or max_uploads_mb <= 0 or max_tool_seconds < 0:
            raise AgentConfigError(
                f"{type(self).__name__}: timeout and upload caps must be positive, "
                "max_tool_seconds not negative."
            )
        self.timeout = float(timeout)
        self.max_tool_seconds = float(max_tool_seconds)
        self.roots = authorized_roots(additional_authorized_imports)
        self.max_log = max_print_outputs_length or DEFAULT_MAX_LOG_CHARS
        self._base_folders = [str(p) for p in read_only_paths]
        self.uploads = UploadSync(int(max_upload_mb * 2**20), int(max_uploads_mb * 2**20))
        self.uploads.folders = list(self._base_folders)
        self._tools: dict[str, Any] = {}
        self._variables: dict[str, Any] = {}
        self._kernel: GatewayKernel | None = None
        self._ready = False  # the bridge is loaded in the kernel
        self._used = False  # the kernel has run model code since it (re)started
        self._generation = 0  # bumps on every new or restarted kernel
        self._checkpoint: int | None = None  # generation holding it; -1: a fresh state
        self._final: tuple[bool, Any] = (False, None)
        self._in_tool = False
        self._interrupt_pending = False
        self._lock = threading.RLock()
        self._holder: list[GatewayKernel | None] = [None]
        self._finalizer = weakref.finalize(self, _shutdown, self._holder)

    # -- what subclasses provide ----------------------------------------------------------------

    def _open_kernel(self) -> GatewayKernel:
        """A client for a new kernel (not started yet); provision the gateway if needed."""
        raise NotImplementedError

    def _where(self) -> dict[str, Any]:
        """Where code runs and what isolates it: at least "where" and "level"."""
        raise NotImplementedError

    def _release(self) -> None:
        """Free what `_open_kernel` provisioned (a container, a cloud sandbox)."""

    # -- the CodeExecutor seam ------------------------------------------------------------------

    @property
    def isolation(self) -> dict[str, Any]:
        """Where the code runs and what isolates it (does not start a kernel)."""
        kernel = self._kernel
        report = {"process": True, "remote": True, "executor": self.kind, **self._where()}
        report["kernel_id"] = kernel.kernel_id if kernel is not None else None
        return report

    @property
    def state(self) -> dict[str, Any]:
        """The code's variables now (smolagents' `python_executor.state`), as they cross
        back: plain data as is, anything else as its repr. Empty before a kernel runs."""
        with self._lock:
            if not self._ready:
                return {}
            outcome = self._setup_call("__smolui__.variables()", silent=False)
        value = outcome.value if outcome is not None else None
        return dict(value) if isinstance(value, dict) else {}

    def send_variables(self, variables: dict[str, Any]) -> None:
        with self._lock:
            self._variables.update(variables)
            if self._ready:
                self._setup_call(vars_code(variables))

    def send_tools(self, tools: dict[str, Any]) -> None:
        with self._lock:
            self._tools = {name: tool for name, tool in tools.items() if name != "final_answer"}
            if self._ready:
                self._setup_call(f"__smolui__.install_tools({sorted(self._tools)!r})")

    def __call__(self, code: str) -> CodeOutput:
        with self._lock:
            self._interrupt_pending = False
            self._final = (False, None)
            self._check_policy(code)
            try:
                kernel = self._ensure_kernel()
                notes = self._sync_uploads(kernel)
                self._used = True
                outcome = self._execute(kernel, code, self.timeout)
            except ExecutionTimeout:
                raise self._after_timeout() from None
            except KernelDied as died:
                self._discard()
                raise AgentExecutionError(
                    f"The kernel died ({died}; out of memory, or the code ended the process) "
                    f"and will be replaced: {_LOST}.",
                    state_lost=True,
                ) from None
            except GatewayError as error:
                self._discard()
                raise AgentExecutionError(
                    f"{str(error).rstrip('.')}. The remote kernel is lost ({_LOST}); the next "
                    "step starts a new one.",
                    state_lost=True,
                ) from None
        return self._to_output(outcome, notes)

    def reset(self) -> None:
        """Start over: a restarted kernel (no variables or imports) with no copied files."""
        with self._lock:
            if self._kernel is None or not self._used:
                return
            try:
                self._kernel.restart()
            except GatewayError:
                self._discard()
                return
            self._restarted()

    def close(self) -> None:
        with self._lock:
            self._discard()
            try:
                self._release()
            finally:
                self._finalizer()

    # -- the rest of the seam -------------------------------------------------------------------

    def start(self) -> None:
        """Start the kernel now (otherwise it starts on first use)."""
        with self._lock:
            try:
                self._ensure_kernel()
            except GatewayError as error:
                raise AgentConfigError(f"The remote kernel could not start: {error}") from None

    @property
    def running(self) -> bool:
        """True once a kernel was started (and until it is dropped or the executor closed)."""
        return self._kernel is not None

    def set_read_paths(self, paths: Sequence[str | Path]) -> None:
        """Copy these folders' files into the kernel too, instead of those of the last call.

        Args:
            paths: Folders whose files the code may read; empty takes every grant back.
        """
        with self._lock:
            self.uploads.folders = [*self._base_folders, *map(str, paths)]

    def checkpoint(self) -> None:
        """Remember which value each variable name has now, for one `rollback`."""
        with self._lock:
            if self._kernel is None or not self._used:
                self._checkpoint = -1
                return
            self._checkpoint = self._generation
            self._setup_call("__smolui__.checkpoint()")

    def rollback(self) -> bool:
        """Give names their values at the last `checkpoint` (changes inside objects stay).
        False if there is no checkpoint or the kernel was replaced since."""
        with self._lock:
            mark, self._checkpoint = self._checkpoint, None
            if mark == -1:
                self.reset()
                return True
            if mark is None or self._kernel is None or mark != self._generation:
                return False
            outcome = self._setup_call("__smolui__.rollback()", silent=False)
            return outcome is not None and outcome.value is True

    def interrupt(self) -> None:
        """Stop the running step through the gateway (it fails); variables are kept."""
        self._interrupt_pending = True
        kernel = self._kernel
        if kernel is not None and not self._in_tool:
            try:
                kernel.interrupt()
            except GatewayError:
                logger.info("interrupt failed", exc_info=True)

    def __enter__(self) -> RemoteExecutor:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    # -- kernel lifecycle -----------------------------------------------------------------------

    def _ensure_kernel(self) -> GatewayKernel:
        if self._kernel is None:
            kernel = self._open_kernel()
            try:
                kernel.start()
            except BaseException:
                kernel.shutdown()  # a kernel created before the failure must not linger
                raise
            self._kernel = self._holder[0] = kernel
            self._restarted()
        if not self._ready:
            self._install(self._kernel)
        return self._kernel

    def _restarted(self) -> None:
        self._ready = self._used = False
        self._generation += 1
        self.uploads.forget()

    def _install(self, kernel: GatewayKernel) -> None:
        """Load the bridge into the kernel, then the tools and variables."""
        code = [prelude_code(), f"__smolui__.install_tools({sorted(self._tools)!r})"]
        if self._variables:
            code.append(vars_code(self._variables))
        outcome = self._execute(kernel, "\n".join(code), _SETUP_TIMEOUT_S, silent=True)
        if outcome.error:
            raise GatewayError(f"The kernel could not load the tool bridge: {outcome.error}")
        self._ready = True

    def _discard(self) -> None:
        kernel, self._kernel = self._kernel, None
        self._holder[0] = None
        self._ready = False
        self.uploads.forget()
        if kernel is not None:
            kernel.shutdown()

    def _setup_call(self, code: str, silent: bool = True) -> Outcome | None:
        """Run one bridge call; a broken kernel is dropped (the next step starts another)."""
        kernel = self._kernel
        if kernel is None:
            return None
        try:
            return self._execute(kernel, code, _SETUP_TIMEOUT_S, silent=silent)
        except (GatewayError, KernelDied, ExecutionTimeout):
            self._discard()
            return None

    # -- one execution --------------------------------------------------------------------------

    def _execute(self, kernel: GatewayKernel, code: str, seconds: float, silent: bool = False):
        run = ExecutionRun(kernel, self._serve_call, self.max_log, self.max_tool_seconds)
        return run.run(code, time.monotonic() + seconds, silent=silent)

    def _serve_call(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("name") == "final_answer":
            try:
                args = decode_value(request.get("args", []))
            except (RecursionError, ValueError, TypeError):
                args = [None]
            self._final = (True, args[0] if isinstance(args, list) and args else None)
            return {"ok": True, "value": None}
        self._in_tool = True
        try:
            # Served on the thread running the code, so the code's span is the active one.
            reply = run_tool_call(self._tools, request, trace=active_span())
        finally:
            self._in_tool = False
        if self._interrupt_pending and self._kernel is not None:
            self.interrupt()
        return reply

    def _check_policy(self, code: str) -> None:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return  # the kernel reports it, with the line
        try:
            check_imports(tree, self.roots)
        except ImportNotAllowed as error:
            raise AgentExecutionError(f"Code execution failed: {error}") from None

    def _sync_uploads(self, kernel: GatewayKernel) -> list[str]:
        paths, notes = self.uploads.pending()
        for path in paths:
            error = self._send_file(kernel, path)
            if error:
                notes.append(f"{Path(path).name} could not be copied to the kernel: {error}")
            else:
                self.uploads.mark_sent(path)
        return notes

    def _send_file(self, kernel: GatewayKernel, path: str) -> str | None:
        """Copy one file in pieces (gateways cap websocket messages; tornado at 10 MB)."""
        with open(path, "rb") as handle:
            first = True
            while True:
                piece = handle.read(_UPLOAD_PIECE_BYTES)
                if not piece and not first:
                    return None
                data = base64.b64encode(piece).decode()
                code = f"__smolui__.put_file({path!r}, {data!r}, {first})"
                outcome = self._execute(kernel, code, _SETUP_TIMEOUT_S, silent=True)
                if outcome.error:
                    return outcome.error
                first = False

    def _after_timeout(self) -> AgentExecutionError:
        """Interrupt, then restart the kernel (or drop it if the gateway does not answer)."""
        kernel = self._kernel
        try:
            if kernel is not None:
                kernel.interrupt()
                kernel.restart()
                self._restarted()
        except GatewayError:
            self._discard()
        return AgentExecutionError(
            f"Execution timed out after {self.timeout:g} seconds; it was interrupted and the "
            f"kernel restarted: {_LOST}. Make the code faster or split the work into steps.",
            state_lost=True,
        )

    def _to_output(self, outcome: Outcome, notes: list[str]) -> CodeOutput:
        final, value = self._final
        self._final = (False, None)
        logs = "\n".join([*notes, outcome.logs.text()]) if notes else outcome.logs.text()
        if final:
            return CodeOutput(output=value, logs=logs, is_final_answer=True, images=outcome.images)
        if outcome.error is not None:
            message = outcome.error
            if outcome.error_name == "KeyboardInterrupt" and self._interrupt_pending:
                message = "Interrupted"
            raise AgentExecutionError(f"Code execution failed: {message}", logs=logs)
        return CodeOutput(output=outcome.value, logs=logs, images=outcome.images)


def _shutdown(holder: list[GatewayKernel | None]) -> None:
    kernel = holder[0]
    if kernel is not None:
        kernel.shutdown()
