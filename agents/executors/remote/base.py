"""`RemoteExecutor`: runs model-written code in a Jupyter kernel somewhere else.

The executor seam (`CodeExecutor`) on top of one kernel reached through a Jupyter gateway.
Subclasses say only where the gateway is (`_open_kernel`) and how the code is isolated
(`_where`); Docker, E2B and Modal provision a gateway first, then talk to it the same way.

Tools stay on the host: code in the kernel calls them back here (`host_calls`), and
`final_answer(...)` is such a call too, ending the step. Values coming back are decoded
without pickle. The kernel's life (start, bridge, restart, loss) is `kernel_link`'s;
uploads are copied into the kernel before the code that may read them. A run past its
timeout is interrupted through the gateway, then the kernel is restarted and the model
told its variables were lost; a gateway that goes away fails the step clearly, and the
next step starts a new kernel.
"""

from __future__ import annotations

import ast
import threading
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
from agents.executors.remote.execution import ExecutionTimeout, KernelDied, Outcome
from agents.executors.remote.gateway import GatewayError, GatewayKernel
from agents.executors.remote.kernel_link import KernelLink
from agents.executors.remote.prelude import prelude_code, vars_code
from agents.executors.remote.uploads import UploadSync

_LOST = "all variables, imports and functions defined so far were lost"


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
        tools_in_kernel: Tools to ship into the kernel by source and run there instead of
            calling back to the host: self-contained `@tool` functions only (no arguments
            checked against the tool's inputs, no tool span; they cannot read host files).
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
        tools_in_kernel: Sequence[str] = (),
    ):
        if timeout <= 0 or max_upload_mb <= 0 or max_uploads_mb <= 0 or max_tool_seconds < 0:
            raise AgentConfigError(
                f"{type(self).__name__}: timeout and upload caps must be positive, "
                "max_tool_seconds not negative."
            )
        if isinstance(tools_in_kernel, str):
            raise AgentConfigError(
                f"tools_in_kernel takes a list of tool names, not the string {tools_in_kernel!r}."
            )
        self.timeout = float(timeout)
        self.max_tool_seconds = float(max_tool_seconds)
        self.roots = authorized_roots(additional_authorized_imports)
        self.max_log = max_print_outputs_length or DEFAULT_MAX_LOG_CHARS
        self._base_folders = [str(p) for p in read_only_paths]
        self.uploads = UploadSync(int(max_upload_mb * 2**20), int(max_uploads_mb * 2**20))
        self.uploads.folders = list(self._base_folders)
        self._variables: dict[str, Any] = {}
        self.tools_in_kernel = tuple(tools_in_kernel)
        self._shipped: dict[str, tuple[str, str]] = {}  # name -> (source, function name)
        self._tools_sent: tuple[int, str] | None = None  # (kernel generation, code) loaded
        self._checkpoint: int | None = None  # generation holding it; -1: a fresh state
        self._lock = threading.RLock()
        self._link = KernelLink(self.uploads, self.max_log, self.max_tool_seconds)
        self._calls = self._link.calls
        # The link does not refer back to the executor, so the finalizer may hold it.
        self._finalizer = weakref.finalize(self, self._link.discard)

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
        kernel = self._link.kernel
        report = {"process": True, "remote": True, "executor": self.kind, **self._where()}
        report["kernel_id"] = kernel.kernel_id if kernel is not None else None
        return report

    @property
    def state(self) -> dict[str, Any]:
        """The code's variables now (smolagents' `python_executor.state`), as they cross
        back: plain data as is, anything else as its repr. Empty before a kernel runs."""
        with self._lock:
            if not self._link.ready:
                return {}
            outcome = self._link.bridge_call("__smolui__.variables()", silent=False)
        value = outcome.value if outcome is not None else None
        return dict(value) if isinstance(value, dict) else {}

    def send_variables(self, variables: dict[str, Any]) -> None:
        with self._lock:
            self._variables.update(variables)
            if self._link.ready:
                self._link.bridge_call(vars_code(variables))

    def send_tools(self, tools: dict[str, Any]) -> None:
        with self._lock:
            self._shipped = shipped_sources(tools, self.tools_in_kernel)
            self._calls.set_tools({n: t for n, t in tools.items() if n not in self._shipped})
            code = self._tools_code()
            # Agents send their tools before every run: the kernel needs them only once.
            if self._link.ready and self._tools_sent != (self._link.generation, code):
                outcome = self._link.bridge_call(code)
                if outcome is not None and outcome.error:
                    raise AgentConfigError(f"The kernel refused the tools: {outcome.error}")
                self._tools_sent = (self._link.generation, code)

    def __call__(self, code: str) -> CodeOutput:
        with self._lock:
            self._calls.begin()
            self._check_policy(code)
            link = self._link
            try:
                link.ensure(self._open_kernel, self._setup_code)
                notes = link.copy_uploads()
                link.used = True
                outcome = link.execute(code, self.timeout)
            except ExecutionTimeout:
                link.restart(interrupt_first=True)
                raise AgentExecutionError(
                    f"Execution timed out after {self.timeout:g} seconds; it was interrupted "
                    f"and the kernel restarted: {_LOST}. Make the code faster or split the "
                    "work into steps.",
                    state_lost=True,
                ) from None
            except KernelDied as died:
                link.discard()
                raise AgentExecutionError(
                    f"The kernel died ({died}; out of memory, or the code ended the process) "
                    f"and will be replaced: {_LOST}.",
                    state_lost=True,
                ) from None
            except GatewayError as error:
                link.discard()
                raise AgentExecutionError(
                    f"{str(error).rstrip('.')}. The remote kernel is lost ({_LOST}); the next "
                    "step starts a new one.",
                    state_lost=True,
                ) from None
        return self._to_output(outcome, notes)

    def reset(self) -> None:
        """Start over: a restarted kernel (no variables or imports) with no copied files."""
        with self._lock:
            if self._link.used:
                self._link.restart()

    def close(self) -> None:
        with self._lock:
            self._link.discard()
            try:
                self._release()
            finally:
                self._finalizer()

    # -- the rest of the seam -------------------------------------------------------------------

    def start(self) -> None:
        """Start the kernel now (otherwise it starts on first use)."""
        with self._lock:
            try:
                self._link.ensure(self._open_kernel, self._setup_code)
            except GatewayError as error:
                raise AgentConfigError(f"The remote kernel could not start: {error}") from None

    @property
    def running(self) -> bool:
        """True once a kernel was started (and until it is dropped or the executor closed)."""
        return self._link.kernel is not None

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
            if self._link.kernel is None or not self._link.used:
                self._checkpoint = -1
                return
            self._checkpoint = self._link.generation
            self._link.bridge_call("__smolui__.checkpoint()")

    def rollback(self) -> bool:
        """Give names their values at the last `checkpoint` (changes inside objects stay).
        False if there is no checkpoint or the kernel was replaced since."""
        with self._lock:
            mark, self._checkpoint = self._checkpoint, None
            if mark == -1:
                self.reset()
                return True
            if mark is None or self._link.kernel is None or mark != self._link.generation:
                return False
            outcome = self._link.bridge_call("__smolui__.rollback()", silent=False)
            return outcome is not None and outcome.value is True

    def interrupt(self) -> None:
        """Stop the running step through the gateway (it fails); variables are kept.
        During a tool call the kernel waits in `input()`, so the Stop is sent after it."""
        self._calls.interrupt_pending = True
        if not self._calls.in_tool:
            self._link.interrupt()

    def __enter__(self) -> RemoteExecutor:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    # -- helpers --------------------------------------------------------------------------------

    def _setup_code(self) -> str:
        """What a new kernel runs first: the bridge, then the tools and variables."""
        tools = self._tools_code()
        self._tools_sent = (self._link.generation, tools)
        code = [prelude_code(), tools]
        if self._variables:
            code.append(vars_code(self._variables))
        return "\n".join(code)

    def _tools_code(self) -> str:
        """Binds a stub per host tool, then the tools shipped by source."""
        code = f"__smolui__.install_tools({sorted(self._calls.tools)!r})"
        if self._shipped:
            code += f"\n__smolui__.ship_tools({self._shipped!r})"
        return code

    def _check_policy(self, code: str) -> None:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return  # the kernel reports it, with the line
        try:
            check_imports(tree, self.roots)
        except ImportNotAllowed as error:
            raise AgentExecutionError(f"Code execution failed: {error}") from None

    def _to_output(self, outcome: Outcome, notes: list[str]) -> CodeOutput:
        final, value = self._calls.take_final()
        logs = "\n".join([*notes, outcome.logs.text()]) if notes else outcome.logs.text()
        if final:
            return CodeOutput(output=value, logs=logs, is_final_answer=True, images=outcome.images)
        if outcome.error is not None:
            message = outcome.error
            if outcome.error_name == "KeyboardInterrupt" and self._calls.interrupt_pending:
                message = "Interrupted"
            raise AgentExecutionError(f"Code execution failed: {message}", logs=logs)
        return CodeOutput(output=outcome.value, logs=logs, images=outcome.images)


def shipped_sources(tools: dict[str, Any], names: Sequence[str]) -> dict[str, tuple[str, str]]:
    """The source each tool named in `names` is shipped with, and its function's name.

    Args:
        tools: The agent's tools, by name.
        names: Those to run in the kernel.

    Raises:
        AgentConfigError: A name is not among the tools, or its tool is not self-contained.
    """
    from agents.executors.held_tools import HeldTool
    from tools.base import ToolDefinitionError
    from tools.tool_source import plain_function_source

    unknown = sorted(name for name in names if name not in tools or name == "final_answer")
    if unknown:
        raise AgentConfigError(
            f"tools_in_kernel names {', '.join(unknown)}, which is not one of the agent's "
            f"tools that can run in the kernel (tools: {', '.join(sorted(tools)) or 'none'})."
        )
    shipped = {}
    for name in names:
        if isinstance(tools[name], HeldTool):
            raise AgentConfigError(
                f"Tool {name} needs approval before it runs, so it runs on the host where its "
                "calls can be held: leave it out of tools_in_kernel."
            )
        try:
            shipped[name] = plain_function_source(tools[name])
        except ToolDefinitionError as error:
            raise AgentConfigError(
                f"Tool {name} cannot run in the remote kernel: {error} Leave it out of "
                "tools_in_kernel to run it on the host."
            ) from None
    return shipped
