"""`execute_tool {name}` spans for every tool call, whoever makes it.

A ToolCallingAgent runs the model's tool calls itself; a CodeAgent's tools are called by the
model's code, and the executor runs them in this process (the sandbox and remote kernels ask
the host over their channel; the local executor calls them in-process). Both paths open
their span here, with the same attributes.

The span of the tool or code execution running now, with its tracer, is kept in a context
variable (`ActiveSpan`): a managed agent's run nests under it, and an executor captures it
with `active_span()` on the thread that runs the code and hands it to `traced_tool_call` on
whatever thread serves the tool call (context variables do not cross threads by themselves).
With tracing off nothing is ever set, so a tool call costs one `None` check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from agents.observability.genai_attributes import clip

if TYPE_CHECKING:
    from agents.observability.tracer import Span, Tracer

T = TypeVar("T")


@dataclass(frozen=True)
class ActiveSpan:
    """A tool or code span that is running, and the tracer that started it.

    Args:
        tracer: The agent's tracer (enabled).
        span: The running `execute_tool` span.
    """

    tracer: Tracer
    span: Span


_active: ContextVar[ActiveSpan | None] = ContextVar("active_tool_span", default=None)


def active_span() -> ActiveSpan | None:
    """The tool or code span running in this thread (None: tracing off, or none running)."""
    return _active.get()


@contextmanager
def activated(tracer: Tracer, span: Span) -> Iterator[None]:
    """Make `span` the active one in this thread for the block.

    Args:
        tracer: The tracer that started it.
        span: The tool or code span.
    """
    token = _active.set(ActiveSpan(tracer, span))
    try:
        yield
    finally:
        _active.reset(token)


def run_in_tool_span(
    tracer: Tracer,
    parent: Span | None,
    name: str,
    call: Callable[[], T],
    arguments: Any = None,
    call_id: str | None = None,
) -> T:
    """Run `call()` in an `execute_tool {name}` span under `parent`; a failure is recorded on
    the span and raised again. Arguments and result are recorded only when the tracer records
    content (`SMOLUI_TRACE_CONTENT=1`).

    Args:
        tracer: An enabled tracer.
        parent: The step or code span the call belongs to.
        name: The tool's name (`gen_ai.tool.name`).
        call: Runs the tool.
        arguments: The call's arguments (for content recording).
        call_id: The model's id for this call (`gen_ai.tool.call.id`), when it gave one.
    """
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
    if call_id is not None:
        attributes["gen_ai.tool.call.id"] = call_id
    if tracer.record_content and arguments is not None:
        attributes["gen_ai.tool.call.arguments"] = clip(arguments)
    span = tracer.start_span(f"execute_tool {name}", parent, attributes)
    try:
        with activated(tracer, span):
            value = call()
        if tracer.record_content:
            span.set_attributes({"gen_ai.tool.call.result": clip(value)})
        return value
    except BaseException as error:
        span.record_error(error)
        raise
    finally:
        span.end()


def traced_tool_call(
    trace: ActiveSpan | None,
    name: str,
    call: Callable[[], T],
    arguments: Mapping[str, Any] | None = None,
) -> T:
    """Run a tool call that the model's code made, in a span under the code's span.

    Args:
        trace: What `active_span()` returned on the thread running the code (None: untraced,
            and `call` just runs).
        name: The tool's name.
        call: Runs the tool.
        arguments: The call's arguments by name (recorded only with content recording).
    """
    if trace is None:
        return call()
    return run_in_tool_span(trace.tracer, trace.span, name, call, arguments)
