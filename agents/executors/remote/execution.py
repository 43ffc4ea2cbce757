"""One `execute_request` on a remote kernel: send it, then read the messages it causes.

iopub `stream` becomes logs, `display_data` images (PNG) or logs (text), `execute_result`
the value (decoded without pickle from the bridge's MIME type, else its text), `error`
the failure; stdin `input_request`s are tool calls, answered by the host. It ends when
both the shell's `execute_reply` and iopub's `idle` for this request have arrived.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agents.executors.python_runner import BoundedLog
from agents.executors.remote.gateway import GatewayKernel, parent_id
from agents.executors.remote.kernel_bridge import CALL_MARK, VALUE_MIME
from agents.executors.values import ReprValue, decode_value, png_to_image

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_POLL_S = 0.25
MAX_IMAGES = 20


class KernelDied(Exception):
    """The kernel process died (the gateway reports it restarting or dead)."""


class ExecutionTimeout(Exception):
    """The execution passed its deadline."""


@dataclass
class Outcome:
    """What one execution produced, as read from the kernel's messages.

    Args:
        logs: stdout and stderr, capped.
        value: The last expression's value (decoded), or None.
        images: PIL images from display data and image values.
        error: "Name: message" and the traceback when the code raised, else None.
        error_name: The exception's class name, when it raised.
        images_dropped: Images past `MAX_IMAGES`, not kept.
    """

    logs: BoundedLog
    value: Any = None
    images: list[Any] = field(default_factory=list)
    error: str | None = None
    error_name: str | None = None
    images_dropped: int = 0


@dataclass
class ExecutionRun:
    """Runs code on a kernel and collects its `Outcome`.

    Args:
        kernel: The connected kernel.
        serve_call: Answers a tool call (the decoded request) with the reply dict.
        max_log_chars: Cap on logs.
        max_tool_seconds: Time spent in tools does not count against the deadline, up to
            this many seconds per execution.
        take_waited: Seconds the last calls waited for a person's answer (held calls): they
            move the deadline with no cap.
    """

    kernel: GatewayKernel
    serve_call: Callable[[dict[str, Any]], dict[str, Any]]
    max_log_chars: int
    max_tool_seconds: float = 300.0
    take_waited: Callable[[], float] = lambda: 0.0

    def run(self, code: str, deadline: float, silent: bool = False) -> Outcome:
        """Execute `code` and wait for it. Raises ExecutionTimeout, KernelDied, GatewayClosed."""
        content = {
            "code": code,
            "silent": silent,
            "store_history": False,
            "user_expressions": {},
            "allow_stdin": True,
            "stop_on_error": False,
        }
        msg_id = self.kernel.send("shell", "execute_request", content)
        outcome = Outcome(logs=BoundedLog(self.max_log_chars))
        replied = idle = False
        tool_time = 0.0
        while not (replied and idle):
            if time.monotonic() >= deadline:
                raise ExecutionTimeout()
            message = self.kernel.receive(min(deadline, time.monotonic() + _POLL_S))
            if message is None:
                continue
            kind = message["msg_type"]
            if kind == "status" and message["content"].get("execution_state") in (
                "restarting",
                "dead",
            ):
                raise KernelDied(message["content"]["execution_state"])
            if parent_id(message) != msg_id:
                continue
            if kind == "execute_reply":
                replied = True
            elif kind == "status":
                idle = idle or message["content"].get("execution_state") == "idle"
            elif kind == "input_request":
                started = time.monotonic()
                self._answer_input(message)
                waited = self.take_waited()
                spent = min(time.monotonic() - started - waited, self.max_tool_seconds - tool_time)
                tool_time += spent
                deadline += spent + waited
            else:
                _collect(outcome, kind, message["content"])
        return outcome

    def _answer_input(self, message: dict[str, Any]) -> None:
        prompt = str(message["content"].get("prompt", ""))
        if prompt.startswith(CALL_MARK):
            try:
                request = json.loads(prompt[len(CALL_MARK) :])
            except ValueError:
                request = {}
            reply = self.serve_call(request if isinstance(request, dict) else {})
            value = json.dumps(reply)
        else:
            value = ""  # model code called input(): nobody is there to type
        self.kernel.send("stdin", "input_reply", {"value": value}, parent=message["header"])


def _collect(outcome: Outcome, kind: str, content: dict[str, Any]) -> None:
    if kind == "stream":
        outcome.logs.write(str(content.get("text", "")))
    elif kind in ("display_data", "update_display_data"):
        data = content.get("data") or {}
        if not _add_png(outcome, data) and "text/plain" in data:
            outcome.logs.write(str(data["text/plain"]) + "\n")
    elif kind == "execute_result":
        data = content.get("data") or {}
        outcome.value = _value(data)
        if _is_image(outcome.value):
            outcome.images.append(outcome.value)
        else:
            _add_png(outcome, data)
    elif kind == "error":
        name = str(content.get("ename", "Error"))
        trace = _ANSI.sub("", "\n".join(map(str, content.get("traceback") or [])))
        outcome.error_name = name
        outcome.error = trace.strip() or f"{name}: {content.get('evalue', '')}"


def _value(data: dict[str, Any]) -> Any:
    encoded = data.get(VALUE_MIME)
    if isinstance(encoded, str):
        try:
            return decode_value(json.loads(encoded))
        except (RecursionError, ValueError, TypeError):
            pass
    text = data.get("text/plain")
    return ReprValue(str(text), "object") if text is not None else None


def _add_png(outcome: Outcome, data: dict[str, Any]) -> bool:
    encoded = data.get("image/png")
    if not isinstance(encoded, str):
        return False
    if len(outcome.images) >= MAX_IMAGES:
        if not outcome.images_dropped:
            outcome.logs.write(f"[only the first {MAX_IMAGES} images of a step are kept]\n")
        outcome.images_dropped += 1
        return True
    try:
        image = png_to_image(base64.b64decode(encoded))
    except (ValueError, TypeError, binascii.Error, OSError):
        return False
    if _is_image(image):  # else the bytes were not a PNG the size cap allows
        outcome.images.append(image)
    return True


def _is_image(value: Any) -> bool:
    return type(value).__module__.startswith("PIL.")
