"""`KernelLink`: a remote executor's one kernel, from its start to its end.

It starts the kernel on first use, loads the bridge (`prelude`) with the tools and
variables into it, runs code through `ExecutionRun`, restarts it after a timeout, and drops
it when it or its gateway is lost (the next use starts a new one). `generation` counts
kernels and restarts, so that a checkpoint taken in an earlier one is not rolled back to.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from agents.executors.remote.execution import ExecutionRun, ExecutionTimeout, KernelDied, Outcome
from agents.executors.remote.gateway import GatewayError, GatewayKernel
from agents.executors.remote.host_calls import HostCalls
from agents.executors.remote.uploads import UploadSync, copy_pending

logger = logging.getLogger(__name__)

SETUP_TIMEOUT_S = 60.0


class KernelLink:
    """Holds at most one kernel and runs code on it.

    Args:
        uploads: Which uploaded files the kernel already holds.
        max_log_chars: Cap on one execution's logs.
        max_tool_seconds: Most seconds tools may add to one execution's deadline.
    """

    def __init__(self, uploads: UploadSync, max_log_chars: int, max_tool_seconds: float):
        self.calls = HostCalls(self.interrupt)  # what the kernel's calls back reach
        self.uploads = uploads
        self.max_log_chars = max_log_chars
        self.max_tool_seconds = max_tool_seconds
        self.kernel: GatewayKernel | None = None
        self.ready = False  # the bridge is loaded in the kernel
        self.used = False  # the kernel has run model code since it (re)started
        self.generation = 0  # bumps on every new or restarted kernel

    def ensure(
        self, open_kernel: Callable[[], GatewayKernel], setup_code: Callable[[], str]
    ) -> GatewayKernel:
        """The kernel, started (with `open_kernel`) and loaded (with `setup_code()`) if needed.

        Raises:
            GatewayError: It could not start, or the bridge did not load.
        """
        if self.kernel is None:
            kernel = open_kernel()
            try:
                kernel.start()
            except BaseException:
                kernel.shutdown()  # a kernel created before the failure must not linger
                raise
            self.kernel = kernel
            self._restarted()
        if not self.ready:
            outcome = self.execute(setup_code(), SETUP_TIMEOUT_S, silent=True)
            if outcome.error:
                raise GatewayError(f"The kernel could not load the tool bridge: {outcome.error}")
            self.ready = True
        return self.kernel

    def execute(self, code: str, seconds: float, silent: bool = False) -> Outcome:
        """Run code on the kernel (which must exist) within `seconds` plus time in tools.

        Raises:
            ExecutionTimeout, KernelDied, GatewayError: as `ExecutionRun.run`.
        """
        if self.kernel is None:
            raise GatewayError("No kernel is running.")
        run = ExecutionRun(
            self.kernel,
            self.calls.serve,
            self.max_log_chars,
            self.max_tool_seconds,
            self.calls.take_waited,
        )
        return run.run(code, time.monotonic() + seconds, silent=silent)

    def bridge_call(self, code: str, silent: bool = True) -> Outcome | None:
        """Run one call of the bridge's; None if no kernel runs. A broken kernel is dropped
        (the next step starts another)."""
        if self.kernel is None:
            return None
        try:
            return self.execute(code, SETUP_TIMEOUT_S, silent=silent)
        except (GatewayError, KernelDied, ExecutionTimeout):
            self.discard()
            return None

    def copy_uploads(self) -> list[str]:
        """Send the upload files the kernel does not hold yet; notes about those that failed
        or were skipped."""
        return copy_pending(self.uploads, lambda code: self.execute(code, SETUP_TIMEOUT_S, True))

    def interrupt(self) -> None:
        """Interrupt the running code through the gateway; failures are logged."""
        kernel = self.kernel
        if kernel is not None:
            try:
                kernel.interrupt()
            except GatewayError:
                logger.info("interrupt failed", exc_info=True)

    def restart(self, interrupt_first: bool = False) -> None:
        """Restart the kernel (its state is lost); drop it if the gateway does not answer.

        Args:
            interrupt_first: Interrupt the running code before (after a timeout).
        """
        kernel = self.kernel
        if kernel is None:
            return
        try:
            if interrupt_first:
                kernel.interrupt()
            kernel.restart()
        except GatewayError:
            self.discard()
            return
        self._restarted()

    def discard(self) -> None:
        """Drop the kernel: close its websocket and delete it on the gateway."""
        kernel, self.kernel = self.kernel, None
        self.ready = False
        self.uploads.forget()
        if kernel is not None:
            kernel.shutdown()

    def _restarted(self) -> None:
        self.ready = self.used = False
        self.generation += 1
        self.uploads.forget()
