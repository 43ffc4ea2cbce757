"""`LocalPythonExecutor`: runs code in this process. Fast and simple, and NOT a sandbox.

Use it only with trusted models or for tests; the sandboxed executor is the default.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.errors import AgentExecutionError
from agents.executors.base import CodeOutput
from agents.executors.python_runner import (
    DEFAULT_MAX_LOG_CHARS,
    BoundedLog,
    authorized_roots,
    final_answer_function,
    format_exception,
    guarded_import,
    is_pil_image,
    make_print,
    run_snippet,
)
from agents.executors.state import user_variables
from agents.executors.tool_calls import named_arguments
from agents.observability.tool_spans import ActiveSpan, active_span, traced_tool_call


class LocalPythonExecutor:
    """Runs snippets with `exec` against a namespace that persists across calls.

    Args:
        additional_authorized_imports: Module names code may import besides the base list;
            `"*"` allows all.
        max_print_outputs_length: Cap on captured print output per call, in characters.
    """

    isolation = {
        "process": False,
        "rlimits": False,
        "seccomp": False,
        "landlock": False,
        "clean_env": False,
        "level": "none (in-process)",
    }

    def __init__(
        self,
        additional_authorized_imports: list[str] | None = None,
        max_print_outputs_length: int | None = None,
        **_: Any,
    ):
        self.roots = authorized_roots(additional_authorized_imports)
        self.max_log = max_print_outputs_length or DEFAULT_MAX_LOG_CHARS
        self._tools: dict[str, Any] = {}
        self._variables: dict[str, Any] = {}
        self.namespace: dict[str, Any] = {}
        self._saved: dict[str, Any] | None = None
        self._trace: ActiveSpan | None = None  # the code span of the running call, if traced
        self.reset()

    def reset(self) -> None:
        safe_builtins = dict(vars(builtins))
        safe_builtins["__import__"] = guarded_import(self.roots)
        self.namespace = {"__builtins__": safe_builtins, "__name__": "__agent__"}
        self.namespace.update(self._variables)
        self.namespace.update(self._tools)

    @property
    def state(self) -> dict[str, Any]:
        """The code's variables (values only: no tools, functions or modules)."""
        return user_variables(self.namespace)

    def send_variables(self, variables: dict[str, Any]) -> None:
        self._variables.update(variables)
        self.namespace.update(variables)

    def checkpoint(self) -> None:
        """Remember which value each variable name has now, for one `rollback`."""
        self._saved = dict(self.namespace)

    def rollback(self) -> bool:
        """Give every name its value at the last `checkpoint` (object contents stay changed)."""
        saved, self._saved = self._saved, None
        if saved is None:
            return False
        self.namespace.clear()
        self.namespace.update(saved)
        return True

    def send_tools(self, tools: dict[str, Any]) -> None:
        self._tools = {name: self._traced(name, tool) for name, tool in tools.items()}
        self._tools["final_answer"] = final_answer_function
        self.namespace.update(self._tools)

    @property
    def running(self) -> bool:
        """Always False: the code runs in this process, there is no worker to start."""
        return False

    def start(self) -> None:
        """Nothing to start: the code runs in this process."""

    def interrupt(self) -> None:
        """Nothing to do: in-process code cannot be stopped safely from another thread; the
        agent stops at the next step boundary."""

    def set_read_paths(self, paths: Sequence[str | Path]) -> None:
        """Nothing to do: in-process code can read whatever this process can (not a sandbox).

        Args:
            paths: Ignored.
        """

    def __call__(self, code: str) -> CodeOutput:
        log = BoundedLog(self.max_log)
        self.namespace["__builtins__"]["print"] = make_print(log)
        # Captured here: the code may call tools from threads of its own.
        self._trace = active_span()
        try:
            value, is_final = run_snippet(code, self.namespace, self.roots)
        except Exception as error:
            raise AgentExecutionError(
                f"Code execution failed: {format_exception(error)}", logs=log.text()
            ) from error
        finally:
            self._trace = None
        value, images = _show_figures(value, log)
        images = [value] if is_pil_image(value) else images
        return CodeOutput(output=value, logs=log.text(), is_final_answer=is_final, images=images)

    def close(self) -> None:
        self.namespace.clear()

    def _traced(self, name: str, tool: Any) -> Any:
        """The tool as the code sees it: called as is, in an `execute_tool` span when traced."""

        def call(*args: Any, **kwargs: Any) -> Any:
            trace = self._trace
            if trace is None:
                return tool(*args, **kwargs)
            arguments = named_arguments(tool, list(args), kwargs)
            return traced_tool_call(trace, name, lambda: tool(*args, **kwargs), arguments)

        call.__name__ = call.__qualname__ = name
        call.__doc__ = tool.__doc__
        call.__wrapped__ = tool  # type: ignore[attr-defined]
        return call


def _show_figures(value: Any, log: BoundedLog) -> tuple[Any, list[Any]]:
    """Like the sandbox: a figure value becomes an image, open pyplot figures become the
    step's images (then closed), with a note in the log when a cap applies."""
    from agents.executors.figures import ImageCollector, figure_of, figure_png
    from agents.executors.values import png_to_image

    collector = ImageCollector()
    figure = figure_of(value)
    if figure is not None:
        collector.mark_shown(figure)
        value = png_to_image(figure_png(figure)[0])
    try:
        collector.capture_open_figures()
    except Exception as error:  # noqa: BLE001 - e.g. pyplot broken by the code itself
        log.write(f"[figures could not be captured: {type(error).__name__}: {error}]\n")
    for note in collector.take_notes():
        log.write(f"[{note}]\n")
    return value, [png_to_image(png) for png in collector.pngs]
