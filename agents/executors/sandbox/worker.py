"""The sandbox worker: the confined process that runs model-written code, one request at a time.

`SandboxExecutor` starts it with a clean environment and two pipes (often ahead of time,
as a spare). The worker waits for its setup (folder, environment, limits), confines itself (`confine.confine`), says it is ready, then serves:
`exec` runs a snippet against a namespace that persists (like a notebook; asked to, it
sends what the snippet prints as it comes, throttled: `live`), `vars` adds
values, `tools` installs stubs that forward calls to the host. Only the standard library
is imported here, so a fresh worker starts fast and stays small.
"""

from __future__ import annotations

import builtins
import json
import mmap
import os
import signal
import sys
import threading
from typing import Any

from agents.executors.figures import ImageCollector, figure_of, figure_png, install_show_hooks
from agents.executors.preload import preload_while_idle
from agents.executors.previews import table_tree
from agents.executors.python_runner import (
    BoundedLog,
    final_answer_function,
    format_exception,
    guarded_import,
    make_print,
    run_snippet,
)
from agents.executors.sandbox.channel import Channel, ChannelClosed
from agents.executors.sandbox.confine import confine
from agents.executors.sandbox.live import LiveFlusher, LiveLog
from agents.executors.sandbox.marks import changes_since, interpreter_marks, plain_values
from agents.executors.values import TAG, decode_value, encode_value

_PERMISSION_HINT = (
    " [the sandbox forbids this: no network, no new processes, no signals to other "
    "processes; files are readable only in the upload folders and the Python installation, "
    "writable only in the current folder]"
)


class ToolError(Exception):
    """A tool called from the code failed in the host (bad arguments, or the tool raised)."""


def main(read_fd: int, write_fd: int) -> None:
    """Set up, confine, and serve requests until the host closes the pipe.

    Args:
        read_fd: Pipe the host writes requests to.
        write_fd: Pipe the worker writes replies and tool calls to.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only a running step may be interrupted
    channel = Channel(read_fd, write_fd)
    try:
        setup = channel.receive()  # a spare worker may wait here a long time, or forever
    except ChannelClosed:
        return
    sys.path.extend(p for p in setup["sys_path"] if p not in sys.path)
    sys.argv = [""]
    os.environ.update(setup.get("env", {}))
    os.chdir(setup["cwd"])
    report = confine(
        setup["limits"], setup["read_only"], setup["read_write"], setup.get("namespaces", True)
    )
    worker = Worker(channel, setup)
    channel.send({"t": "ready", "isolation": report, "pid": os.getpid()})
    worker.serve()


class Worker:
    """Runs snippets and forwards tool calls.

    Args:
        channel: The pipe pair to the host.
        setup: The host's setup message (import policy, output caps, memory limit).
    """

    def __init__(self, channel: Channel, setup: dict[str, Any]):
        self.channel = channel
        imports = setup.get("authorized_imports")
        self.roots = None if imports is None else set(imports)
        self.max_log = int(setup["max_log_chars"])
        self.max_output = int(setup["max_output_chars"])
        self.max_image_bytes = int(setup["max_image_bytes"])
        self.memory_mb = setup["limits"].get("memory_mb")
        self.lock = threading.Lock()
        self.executing = False
        self.interrupted = False
        self.request_id: Any = None  # the id of the host's request being served
        self.calls = 0  # tool calls made, numbering them
        self.live: LiveLog | None = None  # the running step's log, when the host shows it live
        self.flusher = LiveFlusher(self._send_live)
        signal.signal(signal.SIGINT, self._on_interrupt)
        self.collector = ImageCollector()
        self.reserve: mmap.mmap | None = None
        self._reserve_memory()
        self.builtins = dict(vars(builtins))
        self.builtins["__import__"] = self._importer(guarded_import(self.roots))
        self.namespace: dict[str, Any] = {
            "__builtins__": self.builtins,
            "__name__": "__agent__",
            "final_answer": final_answer_function,
            "display": self.display,
        }
        self.saved: dict[str, Any] | None = None  # the names as they were at the checkpoint
        self.saved_marks: dict[str, Any] = {}  # threads, import hooks, builtins then
        self.preload = [str(m) for m in setup.get("preload", [])]  # until the first code runs

    def serve(self) -> None:
        handlers = {
            "exec": self.execute,
            "vars": self.set_variables,
            "tools": self.set_tools,
            "checkpoint": self.checkpoint,
            "rollback": self.rollback,
        }
        while True:
            if self.preload and preload_while_idle(self.channel.read_fd, self.preload):
                self.preload = []  # idle before the first code: the data stack is imported
            try:
                message = self.channel.receive()
            except ChannelClosed:
                return
            if message["t"] == "exec":
                self.preload = []
            handler = handlers.get(message["t"])
            if handler is None:  # e.g. a tool reply that arrived after an interrupt
                continue
            self.request_id = message.get("id")  # echoed, so the host can drop stale replies
            try:
                reply = handler(message)
            except BaseException as error:  # e.g. no memory left to encode the result
                self._release_memory()
                reply = {"t": "result", "ok": False, "error": self._describe(error)}
            reply["id"] = self.request_id
            self.channel.send(reply)
            self._reserve_memory()

    def _on_interrupt(self, *_: Any) -> None:
        # The host may repeat SIGINT until the step ends; interrupt each step once, and only
        # while it runs, so a repeat can never land in the worker's own bookkeeping.
        if self.executing and not self.interrupted:
            self.interrupted = True
            raise KeyboardInterrupt

    def _reserve_memory(self) -> None:
        # Address space held back (never touched, so it costs no RAM) and given up when the
        # code exhausts memory, so the worker can still report the error and keep serving.
        if self.reserve is None:
            try:
                self.reserve = mmap.mmap(-1, 16 * 1024 * 1024)
            except (OSError, ValueError):
                self.reserve = None

    def _release_memory(self) -> None:
        if self.reserve is not None:
            self.reserve.close()
            self.reserve = None

    # -- requests ------------------------------------------------------------------------

    def set_variables(self, message: dict[str, Any]) -> dict[str, Any]:
        values = decode_value(message.get("values", {}), trusted=True)
        self.namespace.update(values)
        return {"t": "ok"}

    def checkpoint(self, message: dict[str, Any]) -> dict[str, Any]:
        self.saved = dict(self.namespace)
        self.saved_marks = interpreter_marks(self.builtins, self._own_threads())
        return {"t": "ok"}

    def rollback(self, message: dict[str, Any]) -> dict[str, Any]:
        if self.saved is None:
            return {"t": "ok"}
        self.namespace.clear()
        self.namespace.update(self.saved)
        changed = changes_since(
            self.saved_marks, interpreter_marks(self.builtins, self._own_threads())
        )
        if not changed:
            return {"t": "ok"}
        # Variables alone cannot undo this: the host restarts the worker with these values.
        values, lost = plain_values(self.saved)
        return {"t": "ok", "changed": changed, "values": values, "lost": lost}

    def set_tools(self, message: dict[str, Any]) -> dict[str, Any]:
        for name in message.get("names", []):
            if name != "final_answer":
                self.namespace[name] = self._stub(name)
        return {"t": "ok"}

    def execute(self, message: dict[str, Any]) -> dict[str, Any]:
        self.live = LiveLog(self.max_log) if message.get("live") else None
        log = self.live or BoundedLog(self.max_log)
        self.flusher.follow(self.live)
        self.builtins["print"] = make_print(log)
        self.collector = ImageCollector()
        self._patch_viewers()
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = log
        self.executing, self.interrupted = True, False
        value, is_final, error = None, False, None
        try:
            value, is_final = run_snippet(str(message.get("code", "")), self.namespace, self.roots)
        except BaseException as exc:  # the code's failure, whatever it is, goes to the model
            if isinstance(exc, MemoryError):
                self._release_memory()
            error = self._describe(exc)
        finally:
            sys.stdout, sys.stderr = saved
            with self.lock:  # waits for a tool call (or live output) in flight from a thread
                self.executing = False
                self.live = None
            self.flusher.follow(None)
        output = self._encode_output(value, is_final) if error is None else None
        images = self._encode_images(log)
        return {
            "t": "result",
            "ok": error is None,
            "error": error,
            "output": output,
            "is_final": is_final,
            "logs": log.text(),
            "images": images,
        }

    # -- tools ---------------------------------------------------------------------------

    def _stub(self, name: str) -> Any:
        def call_tool(*args: Any, **kwargs: Any) -> Any:
            return self.call_host(name, args, kwargs)

        call_tool.__name__ = call_tool.__qualname__ = name
        return call_tool

    def call_host(self, name: str, args: tuple, kwargs: dict[str, Any]) -> Any:
        """Send a tool call to the host and wait for its result."""
        with self.lock:
            if not self.executing:
                raise ToolError(f"Tool {name} can only be called while a step is running.")
            self.calls += 1
            self._flush_live()  # the tool may take long: what was printed shows meanwhile
            request = {
                "t": "call",
                "id": self.request_id,
                "cid": self.calls,
                "name": name,
                "args": encode_value(list(args)),
                "kwargs": encode_value(dict(kwargs)),
            }
            self.channel.send(request)
            reply = self.channel.receive()
            while reply.get("cid") != self.calls:  # a stale reply (e.g. after an interrupt)
                reply = self.channel.receive()
        if reply.get("t") != "return":
            raise ToolError(f"Tool {name}: the host answered out of turn.")
        if not reply.get("ok"):
            raise ToolError(str(reply.get("error")))
        return decode_value(reply.get("value"), trusted=True)

    def _send_live(self, log: LiveLog, tail: str) -> bool:
        """Send a step's output so far (from the flusher thread); False when a tool call holds
        the channel. Nothing goes once that step ended: its result must be its last frame."""
        if not self.lock.acquire(blocking=False):
            return False
        try:
            if self.executing and self.live is log:
                self.channel.send({"t": "output", "id": self.request_id, "text": tail})
            return True
        finally:
            self.lock.release()

    def _own_threads(self) -> set[int]:
        """The worker's own threads, which no rollback has to undo."""
        return {self.flusher.ident} if self.flusher.ident is not None else set()

    def _flush_live(self) -> None:
        """Send the output so far now (the caller holds the lock)."""
        tail = self.live.take() if self.live is not None else None
        if tail is not None:
            self.channel.send({"t": "output", "id": self.request_id, "text": tail})

    # -- images and output ---------------------------------------------------------------

    def display(self, *values: Any) -> None:
        """Show values like a notebook: figures and images go to the UI, tables print as a
        compact preview, anything else as its repr."""
        for value in values:
            if not self.collector.add(value):
                table = table_tree(value)
                self.builtins["print"](table["repr"] if table else repr(value))

    def _importer(self, guarded: Any) -> Any:
        def import_and_patch(name: str, *args: Any, **kwargs: Any) -> Any:
            module = guarded(name, *args, **kwargs)
            if name.startswith(("PIL", "matplotlib")):
                self._patch_viewers()
            return module

        return import_and_patch

    def _patch_viewers(self) -> None:
        # plt.show() draws into this step's images, like a notebook's inline backend.
        install_show_hooks(lambda: self.collector)
        # Image.show() would start a viewer process; here it displays in the chat instead.
        pil = sys.modules.get("PIL.Image")
        if pil is not None and getattr(pil.Image.show, "__name__", "") != "display":  # PIL's
            pil.Image.show = lambda image, *_, **__: self.display(image)
            pil.Image.show.__name__ = "display"

    def _encode_images(self, log: BoundedLog) -> list[str]:
        """Draw the figures still open (then close them), and encode the step's images."""
        import base64

        try:
            self.collector.capture_open_figures()
        except Exception as error:  # noqa: BLE001 - e.g. pyplot broken by the code itself
            log.write(f"[figures could not be captured: {type(error).__name__}: {error}]\n")
        encoded, total, dropped = [], 0, 0
        for png in self.collector.pngs:
            if total + len(png) > self.max_image_bytes:
                dropped += 1
                continue
            total += len(png)
            encoded.append(base64.b64encode(png).decode())
        notes = self.collector.take_notes()
        if dropped:
            notes.append(f"{dropped} image(s) not shown: over the size limit")
        for note in notes:
            log.write(f"[{note}]\n")
        self.collector = ImageCollector()
        return encoded

    def _encode_output(self, value: Any, is_final: bool = False) -> Any:
        figure = figure_of(value)
        if figure is not None:  # a figure as the value or the answer: it becomes an image
            return self._figure_value(figure)
        # an answer's table also carries its cells, for the host to rebuild a DataFrame
        table = table_tree(value, data_limit=self.max_output if is_final else 0)
        if table is not None:
            return table
        tree = encode_value(value)
        if len(json.dumps(tree)) <= self.max_output:
            return tree
        try:
            text = value if isinstance(value, str) else repr(value)
        except Exception:
            text = f"<{type(value).__name__} object>"
        cut = text[: self.max_output]
        note = f"\n[... output cut: {len(text) - len(cut)} more characters]"
        return cut + note

    def _figure_value(self, figure: Any) -> Any:
        import base64

        self.collector.mark_shown(figure)
        try:
            png, note = figure_png(figure, self.collector.max_side)
        except Exception as error:  # noqa: BLE001 - shown to the model like a repr
            return encode_value(f"<figure could not be drawn: {type(error).__name__}: {error}>")
        if note:
            self.collector.notes.append(note)
        return {TAG: "image", "v": base64.b64encode(png).decode()}

    def _describe(self, error: BaseException) -> str:
        try:
            text = format_exception(error)
        except Exception:  # a hostile __str__
            text = type(error).__name__
        if isinstance(error, MemoryError):
            text += f" (the code ran out of memory: the sandbox allows {self.memory_mb} MB)"
        elif isinstance(error, KeyboardInterrupt):
            text = "Interrupted: the step was stopped before it finished."
        elif isinstance(error, SystemExit):
            text = "SystemExit: the code called exit(); variables are kept, carry on."
        elif isinstance(error, PermissionError):
            text += _PERMISSION_HINT
        return text[:20_000]
