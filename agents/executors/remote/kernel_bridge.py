"""The kernel side of a remote executor: tool stubs, `final_answer`, values, checkpoints.

Its source is sent to each new Jupyter kernel (together with the value codec, `values`, loaded
there as `_smolui_values`) and executed as a module, so it uses only the standard
library, IPython and pyzmq, which every ipykernel has. The host imports it for its constants
only, so those and the codec are imported inside the functions.

Why `input_request` carries tool calls (and not comm messages): a running cell blocks the
kernel's shell channel, so a comm reply from the host would only be read after the cell
ends. `input()` is the one request a running cell may make and wait on: the kernel sends
`input_request` on the stdin channel, the gateway forwards it over the same websocket,
and the host's `input_reply` wakes the cell. So a tool stub sends its call as the prompt
(a marker and JSON), the host validates and runs the real tool and replies with JSON.
"""

from __future__ import annotations

import base64
import json
import os
import sys

CALL_MARK = "\x1esmolui-call:"
VALUE_MIME = "application/x-smolui-value"
MAX_VALUE_CHARS = 1_000_000
STDIN_WAIT_S = 10.0  # how long a tool call waits for the host's stdin channel to connect


class FinalAnswer(BaseException):
    """Ends the cell once the host holds the final answer (not an `Exception`: code's
    `except Exception` must not swallow it)."""


class ToolError(Exception):
    """A tool failed on the host; the message says why."""


def get_ipython():
    from IPython import get_ipython as current_shell

    return current_shell()


def _codec():
    return sys.modules["_smolui_values"]  # registered by the host's prelude


def call_tool(name: str, args: tuple, kwargs: dict) -> object:
    """Ask the host to run tool `name`; return its result or raise `ToolError`."""
    codec = _codec()
    request = {
        "name": name,
        "args": codec.encode_value(list(args)),
        "kwargs": codec.encode_value(dict(kwargs)),
    }
    reply = json.loads(_ask_host(CALL_MARK + json.dumps(request)))
    if not reply.get("ok"):
        raise ToolError(reply.get("error") or "the tool failed")
    return codec.decode_value(reply.get("value"), trusted=True)


def _ask_host(prompt: str) -> str:
    """Send `prompt` as an `input_request` and wait for the host's reply.

    The kernel's stdin socket is a ZeroMQ ROUTER, which drops a message for a peer that is
    not connected without a word; the gateway connects a new websocket's stdin channel to
    the kernel on its own schedule (it waits for shell, control and iopub only), so just
    after a (re)start the request could vanish and leave the cell waiting forever. With
    `ROUTER_MANDATORY` (set in `setup`) such a send fails instead, and is tried again
    until the channel is there.
    """
    import time

    import zmq

    kernel = get_ipython().kernel
    give_up = time.monotonic() + STDIN_WAIT_S
    while True:
        try:
            return kernel.raw_input(prompt)
        except zmq.ZMQError as error:
            if error.errno != zmq.EHOSTUNREACH or time.monotonic() > give_up:
                raise ToolError(f"the host is not connected to the kernel ({error})") from None
        time.sleep(0.005)


def final_answer(answer: object = None) -> None:
    """Give the final answer to the host and end the step."""
    call_tool("final_answer", (answer,), {})
    raise FinalAnswer()


def _stub(name: str):
    def stub(*args, **kwargs):
        return call_tool(name, args, kwargs)

    stub.__name__ = stub.__qualname__ = name
    return stub


def install_tools(names: list[str]) -> None:
    """Bind a stub for each host tool (and `final_answer`) in the user namespace."""
    shell = get_ipython()
    shell.user_ns.update({name: _stub(name) for name in names})
    shell.user_ns["final_answer"] = final_answer


def ship_tools(sources: dict) -> None:
    """Define tools shipped by source (name -> [module source, function name]); calls to
    them run here in the kernel, not on the host."""
    shell = get_ipython()
    for name, (source, function_name) in sources.items():
        namespace = {"__name__": f"_smolui_tool_{name}"}
        try:
            exec(compile(source, f"<tool {name}>", "exec"), namespace)
        except Exception as error:
            raise ToolError(f"tool {name} could not be defined in the kernel: {error!r}") from None
        shell.user_ns[name] = namespace[function_name]


def set_vars(payload: str) -> None:
    """Bind variables sent by the host (JSON; pickle allowed: the host is trusted)."""
    values = _codec().decode_value(json.loads(payload), trusted=True)
    get_ipython().user_ns.update(values)


_saved: dict | None = None


def _visible() -> dict:
    shell = get_ipython()
    hidden = shell.user_ns_hidden
    return {k: v for k, v in shell.user_ns.items() if k not in hidden and not k.startswith("_")}


def variables() -> dict:
    """The code's values (no functions, classes or modules), for the host's `state`."""
    return {k: v for k, v in _visible().items() if not callable(v) and type(v).__name__ != "module"}


def checkpoint() -> None:
    """Remember which value each name has now, for one `rollback`."""
    global _saved
    _saved = _visible()


def rollback() -> bool:
    """Give names their values at the last checkpoint; unbind newer ones."""
    global _saved
    saved, _saved = _saved, None
    if saved is None:
        return False
    namespace = get_ipython().user_ns
    for name in set(_visible()) - set(saved):
        del namespace[name]
    namespace.update(saved)
    return True


def put_file(host_path: str, data: str, first: bool = True) -> str:
    """Write (or, when not `first`, append) a piece of an uploaded file into `uploads/` of
    the working folder; make the host's path lead to it when that path does not exist
    here. Returns the path code should use."""
    folder = os.path.join(os.getcwd(), "uploads")
    os.makedirs(folder, exist_ok=True)
    local = os.path.join(folder, os.path.basename(host_path))
    with open(local, "wb" if first else "ab") as handle:
        handle.write(base64.b64decode(data))
    if os.path.exists(host_path) or not first:
        return host_path if os.path.exists(host_path) else local
    try:
        os.makedirs(os.path.dirname(host_path), exist_ok=True)
        os.symlink(local, host_path)
    except OSError:
        return local
    return host_path


def _encode_for_host(value: object) -> str:
    codec = _codec()
    text = json.dumps(codec.encode_value(value))
    if len(text) > MAX_VALUE_CHARS:
        text = json.dumps(codec.encode_value(repr(value)[:MAX_VALUE_CHARS]))
    return text


def _swallow_final_answer(shell, etype, value, tb, tb_offset=None):
    return None


def setup() -> None:
    """Plain tracebacks, the value formatter, and a quiet `FinalAnswer`."""
    from IPython.core.formatters import BaseFormatter
    from traitlets import ObjectName, Unicode

    class ValueFormatter(BaseFormatter):
        """Adds the last expression's value, encoded for the host, to `execute_result`."""

        format_type = Unicode(VALUE_MIME)
        print_method = ObjectName("_smolui_value_")

    shell = get_ipython()
    shell.run_line_magic("xmode", "Plain")
    try:
        shell.colors = "nocolor"
    except Exception:  # another IPython's names for color schemes: colors only
        pass
    formatter = ValueFormatter(parent=shell.display_formatter)
    formatter.for_type(object, _encode_for_host)
    shell.display_formatter.formatters[VALUE_MIME] = formatter
    # Only what the host reads: HTML, LaTeX, SVG... of every value cost time and go unused.
    shell.display_formatter.active_types = ["text/plain", "image/png", VALUE_MIME]
    shell.set_custom_exc((FinalAnswer,), _swallow_final_answer)
    _report_unreachable_host(shell.kernel)
    _trim_per_execution_costs(shell.kernel)


def _report_unreachable_host(kernel) -> None:
    """Make an `input_request` for a host whose stdin channel is not connected (yet) fail
    instead of vanishing (see `_ask_host`)."""
    import zmq

    kernel.stdin_socket.setsockopt(zmq.ROUTER_MANDATORY, 1)


def _trim_per_execution_costs(kernel) -> None:
    """Costs ipykernel pays on every execution that this host does not need.

    - It sleeps 0.5 ms before each `execute_reply` (`Kernel._execute_sleep`, a config
      trait) so that output flushed just before reaches clients ahead of the reply. The host
      reads output until the kernel's `idle` status, which is published after both.
    - Its logger lets debug records through (traitlets leaves the level to the handlers),
      so every message builds log records that no handler prints.
    - It broadcasts the code of each request on iopub (`execute_input`) for other clients
      watching the kernel: a message more through the gateway per execution, and this
      kernel has one client, the host that sent the code.
    - Before each reply it flushes stdout and stderr even when nothing was written to them,
      each flush a round trip to its iopub thread: an empty one is skipped (output that is
      written is flushed as before, and reaches the host ahead of `idle`).
    """
    if kernel.has_trait("_execute_sleep"):
        kernel._execute_sleep = 0.0
    log = kernel.log
    levels = [handler.level for handler in log.handlers]
    if levels and log.level < min(levels):
        log.setLevel(min(levels))
    if hasattr(type(kernel), "_publish_execute_input"):  # ipykernel version
        kernel._publish_execute_input = _no_execute_input
    for stream in (sys.stdout, sys.stderr):
        # ipykernel's private stream methods, which its versions name differently
        if hasattr(stream, "_flush_pending") and hasattr(stream, "_subprocess_flush_pending"):
            stream.flush = _flush_when_written(stream)


def _no_execute_input(*args, **kwargs) -> None:
    return None


def _flush_when_written(stream):
    """`stream.flush`, skipped while nothing was written since the last flush (the flags are
    ipykernel's `OutStream`'s, set by `write` and cleared when its iopub thread flushes)."""
    flush = stream.flush

    def flush_when_written() -> None:
        if stream._flush_pending or stream._subprocess_flush_pending:
            flush()

    return flush_when_written
