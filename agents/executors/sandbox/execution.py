"""One execution in a sandbox worker, as the host runs it.

The code goes out with a request id; the host then serves the worker's tool calls until
the result comes back, dropping frames that answer no current request. Meanwhile it keeps
a wall-clock deadline that counts tool time, checks the worker's limits (`WorkerWatch`;
the worker is frozen while a tool runs, when nothing checks them), counts the bytes it
sends, and escalates Stop: SIGINT first, and a kill when the code ignores it for
`stop_grace` seconds. Whatever makes the worker unusable raises `WorkerLost`. Asked to
show output live, it hands the worker's `output` frames on, throttled (`live`).
"""

from __future__ import annotations

import time
from typing import Any

from agents.executors.sandbox.budget import BudgetExceeded, StepBudget, StepClock
from agents.executors.sandbox.channel import (
    DEFAULT_MAX_MESSAGE_BYTES,
    Channel,
    ChannelClosed,
    ChannelTimeout,
    MessageTooLarge,
    ProtocolViolation,
)
from agents.executors.sandbox.live import LiveRelay, OutputCallback
from agents.executors.sandbox.process import LOST, WorkerLost, WorkerProcess
from agents.executors.sandbox.watch import WorkerWatch
from agents.executors.tool_calls import run_tool_call
from agents.observability.tool_spans import active_span

_WATCH_INTERVAL = 0.25
_MAX_STALE_FRAMES = 100  # frames answering no current request, dropped, per execution


class StopRequest:
    """A request to stop the running step, and when SIGINT first reached the worker.

    SIGINT is held back while a tool runs in the host (the worker waits on the tool's
    reply, where an interrupt would break the exchange); it is sent once the reply is out.

    Args:
        grace: Seconds the code has to stop after the first SIGINT before it is killed.
    """

    def __init__(self, grace: float):
        self.grace = grace
        self.pending = False
        self.in_tool = False
        self.sent_at: float | None = None

    def ask(self, worker: WorkerProcess | None) -> None:
        """Stop the running step (from any thread).

        Args:
            worker: The current worker, if any.
        """
        self.pending = True
        if worker is not None and not self.in_tool:
            self.send(worker)

    def send(self, worker: WorkerProcess) -> None:
        """Send SIGINT now, remembering when the first one went."""
        if self.sent_at is None:
            self.sent_at = time.monotonic()
        worker.interrupt()

    def overdue(self, now: float) -> bool:
        """True when the code has ignored SIGINT for longer than the grace period."""
        return self.sent_at is not None and now - self.sent_at > self.grace


class Execution:
    """Runs code in a worker and serves its tool calls until the result comes back.

    Args:
        worker: The worker, already set up.
        tools: Name -> tool the code may call.
        budget: What this execution may send and spend.
        stop: The executor's stop request.
        watch: The executor's limit checks.
        timeout: Wall-clock seconds the code may take, tool time not counted.
        max_tool_seconds: Extra seconds tool calls may take.
        tool_reply_timeout: Seconds a tool's reply may wait for the code to read it.
        on_output: Receives what the code printed so far while it runs (None: not asked).
    """

    def __init__(
        self,
        worker: WorkerProcess,
        tools: dict[str, Any],
        budget: StepBudget,
        stop: StopRequest,
        watch: WorkerWatch,
        *,
        timeout: float,
        max_tool_seconds: float,
        tool_reply_timeout: float,
        on_output: OutputCallback | None = None,
    ):
        self.worker, self.tools, self.budget = worker, tools, budget
        self.stop, self.watch = stop, watch
        self.timeout = timeout
        self.tool_reply_timeout = tool_reply_timeout
        self.clock = StepClock(time.monotonic() + timeout, max_tool_seconds)
        self.trace = active_span()  # the code's span (tracing on): its tool calls nest under it
        self.live = LiveRelay(on_output) if on_output is not None else None
        self.checked_at = time.monotonic()  # when the limits and Stop were last checked

    def run(self, code: str, ident: int) -> dict[str, Any]:
        """Send the code; serve tool calls until the result comes back. Raises WorkerLost.

        Args:
            code: The snippet.
            ident: The request id the worker's frames for this execution carry.
        """
        channel = self.worker.channel
        if channel is None:
            raise WorkerLost(f"The sandbox worker was closed. {LOST}.")
        self.stop.sent_at = None
        self.worker.resume()  # paused since its last request
        try:
            return self._exchange(channel, code, ident)
        except ChannelClosed:
            lost = f"The sandbox worker stopped: {self.worker.exit_reason()}. {LOST}."
        except ChannelTimeout:
            lost = f"The code stopped reading from the sandbox channel. {LOST}."
        except ProtocolViolation as error:
            lost = f"The code broke the sandbox protocol ({error}). {LOST}."
        except BudgetExceeded as error:
            lost = f"The code sent the host too much ({error}). {LOST}."
        # Raised here, outside the handlers: the error keeps no context, so no traceback
        # frame (a huge reply that could not be sent, say) outlives the step in its memory.
        raise WorkerLost(lost)

    def _exchange(self, channel: Channel, code: str, ident: int) -> dict[str, Any]:
        """Send the code and serve its tool calls until its result frame arrives."""
        stale = 0
        request = {"t": "exec", "code": code, "id": ident, "live": self.live is not None}
        channel.send(request, self.clock.deadline)
        while True:
            message = self._next_message(channel)
            self.budget.frame(channel.last_frame_bytes)  # stale ones were parsed too
            if message.get("id") != ident:  # stale or forged: not for this request
                stale += 1
                if stale > _MAX_STALE_FRAMES:
                    raise ProtocolViolation(f"more than {_MAX_STALE_FRAMES} stale frames")
                continue
            if message["t"] == "result":
                return message
            if message["t"] == "output" and self.live is not None:
                self.live.offer(message)
                self._watch_between_frames()
                continue
            if message["t"] != "call":
                raise ProtocolViolation(f"unexpected message {message['t']!r}")
            self._serve_tool_call(channel, message)

    def _next_message(self, channel: Channel) -> dict[str, Any]:
        """Wait for the worker's next frame, watching the deadline, limits and Stop."""
        while True:
            now = time.monotonic()
            if now < self.clock.deadline:
                try:
                    return channel.receive(min(self.clock.deadline, now + _WATCH_INTERVAL))
                except ChannelTimeout:
                    now = time.monotonic()
                if self.live is not None:  # output held back by the throttle
                    self.live.due()
            if now >= self.clock.deadline:
                raise WorkerLost(self._timed_out())
            self._watch(now)

    def _watch(self, now: float) -> None:
        """Check the worker's limits, and repeat or escalate a pending Stop."""
        self.checked_at = now
        self.watch.check(self.worker)
        if self.stop.pending and not self.stop.in_tool:
            if self.stop.overdue(now):
                raise WorkerLost(
                    f"Stopped: the code did not stop within {self.stop.grace:g} s of "
                    f"being interrupted, so the sandbox worker was killed. {LOST}."
                )
            self.stop.send(self.worker)  # again: the first may have come before the step

    def _watch_between_frames(self) -> None:
        """`_watch` while output frames keep coming: a stream of them must not keep the
        checks from running (they run when no frame comes for a while)."""
        now = time.monotonic()
        if now - self.checked_at >= _WATCH_INTERVAL:
            self._watch(now)

    def _timed_out(self) -> str:
        spent = self.clock.tool_seconds
        tools = f" (plus {spent:.1f} s in tools)" if spent else ""
        return (
            f"Execution timed out after {self.timeout:g} seconds{tools} and was stopped. "
            f"{LOST}. Make the code faster or split the work into smaller steps."
        )

    def _serve_tool_call(self, channel: Channel, message: dict[str, Any]) -> None:
        """Run a tool for the worker and answer; its time counts against the tool budget
        (a held call's wait for a person's answer does not)."""
        if self.live is not None:  # the tool may take long: show what came before it
            self.live.flush()
        started = time.monotonic()
        waits: list[float] = []
        self.stop.in_tool = True
        # Frozen while the tool runs: nothing watches the worker then (no disk, thread or
        # Stop checks), and a tool may take minutes. The caller waits for the reply anyway.
        self.worker.pause()
        try:
            self.budget.tool_call(channel.last_frame_bytes)
            reply = run_tool_call(
                self.tools, message, self.budget.image, self.trace, waited=waits.append
            )
        except BudgetExceeded as error:
            reply = {"t": "return", "ok": False, "error": f"Refused by the sandbox: {error}."}
        finally:
            self.stop.in_tool = False
            self.worker.resume()
        self.clock.waited_for_answer(sum(waits))
        self.clock.spent_in_tools(time.monotonic() - started - sum(waits))
        reply["cid"] = message.get("cid")
        reply["id"] = message.get("id")
        # The code must read its reply soon: a reply it never reads would block the host.
        deadline = time.monotonic() + self.tool_reply_timeout
        try:
            channel.send(reply, deadline, max_bytes=DEFAULT_MAX_MESSAGE_BYTES)  # the worker's
        except MessageTooLarge as error:
            del reply  # not kept while the short refusal goes out
            refusal = f"The tool's answer was too large to hand to the code ({error})."
            refused = {"t": "return", "ok": False, "error": refusal}
            channel.send({**refused, "cid": message.get("cid"), "id": message.get("id")}, deadline)
        if self.stop.pending:
            self.stop.send(self.worker)
