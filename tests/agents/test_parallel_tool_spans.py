"""Parallel tool calls of a ToolCallingAgent step keep the caller's tracing context: their
spans nest under the step as a single call's do, and the context variables of the caller
(OpenTelemetry's current span, the conversation's trace attributes) reach the worker threads."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("opentelemetry.sdk.trace")

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

from agents import ScriptedModel, ScriptedReply, ToolCallingAgent  # noqa: E402
from agents.observability.otel import OtelTracer  # noqa: E402
from agents.observability.tracing import trace_attributes  # noqa: E402
from tools import tool  # noqa: E402

LIBRARY_SPAN = "library work"


@pytest.fixture
def traced():
    """A tracer provider exporting each span at once to memory, and its exporter."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def make_tools(provider: TracerProvider) -> list:
    """Two tools that each open a span the way an instrumented library does: under
    OpenTelemetry's current context, with no parent handed to them."""
    library = provider.get_tracer("some.library")
    threads: set[str] = set()

    @tool
    def double(x: int) -> int:
        """Doubles a number.

        Args:
            x: The number.
        """
        threads.add(threading.current_thread().name)
        with library.start_as_current_span(LIBRARY_SPAN):
            return 2 * x

    @tool
    def square(x: int) -> int:
        """Squares a number.

        Args:
            x: The number.
        """
        threads.add(threading.current_thread().name)
        with library.start_as_current_span(LIBRARY_SPAN):
            return x * x

    return [double, square], threads


def finished(exporter: InMemorySpanExporter) -> dict[str, list[ReadableSpan]]:
    names: dict[str, list[ReadableSpan]] = {}
    for span in exporter.get_finished_spans():
        names.setdefault(span.name, []).append(span)
    return names


def parent_of(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def run_calls(provider: TracerProvider, calls: list[tuple[str, dict]]) -> tuple[ReadableSpan, set]:
    """Run one step with `calls` inside an outer "request" span; return that span and the
    names of the threads the tools ran on."""
    tools, threads = make_tools(provider)
    model = ScriptedModel([
        ScriptedReply(tool_calls=calls),
        ScriptedReply(tool_calls=[("final_answer", {"answer": "done"})]),
    ])  # fmt: skip
    agent = ToolCallingAgent(tools, model, verbosity_level=-1, name="calc")
    agent.tracing.tracer = OtelTracer(provider)
    with provider.get_tracer("web.server").start_as_current_span("request") as request:
        assert agent.run("compute") == "done"
    return request, threads


@pytest.mark.parametrize(
    "calls",
    [
        [("double", {"x": 3})],
        [("double", {"x": 3}), ("square", {"x": 4})],
        [("double", {"x": 1}), ("square", {"x": 2}), ("double", {"x": 5}), ("square", {"x": 6})],
    ],
    ids=["one call", "two in parallel", "four in parallel"],
)
def test_every_tool_span_of_a_step_is_a_child_of_the_step_span(traced, calls):
    provider, exporter = traced
    request, threads = run_calls(provider, calls)
    if len(calls) > 1:
        assert threading.current_thread().name not in threads  # they did run on workers
    names = finished(exporter)
    (run,) = names["invoke_agent calc"]
    first_step = next(s for s in names["step"] if s.attributes["smolui.step.number"] == 1)
    tool_spans = names.get("execute_tool double", []) + names.get("execute_tool square", [])
    assert len(tool_spans) == len(calls)
    assert {parent_of(span) for span in tool_spans} == {first_step.context.span_id}
    assert parent_of(first_step) == run.context.span_id
    assert parent_of(run) == request.get_span_context().span_id
    agent_spans = [run, *names["step"], *names["chat scripted"], *tool_spans]
    assert {span.context.trace_id for span in agent_spans} == {run.context.trace_id}


@pytest.mark.parametrize(
    "calls",
    [[("double", {"x": 3})], [("double", {"x": 3}), ("square", {"x": 4})]],
    ids=["one call", "two in parallel"],
)
def test_a_tool_sees_the_callers_opentelemetry_context_in_parallel_as_alone(traced, calls):
    provider, exporter = traced
    request, _ = run_calls(provider, calls)
    library_spans = finished(exporter)[LIBRARY_SPAN]
    assert len(library_spans) == len(calls)
    request_context = request.get_span_context()
    for span in library_spans:
        assert span.context.trace_id == request_context.trace_id
        assert parent_of(span) == request_context.span_id


def helper_agent(name: str, answer: str) -> ToolCallingAgent:
    model = ScriptedModel([ScriptedReply(tool_calls=[("final_answer", {"answer": answer})])])
    return ToolCallingAgent(
        [], model, verbosity_level=-1, name=name, description=f"Answers as {name}."
    )


@pytest.mark.parametrize("count", [1, 2], ids=["one managed agent", "two in parallel"])
def test_managed_agents_called_in_parallel_keep_the_conversations_trace_attributes(traced, count):
    provider, exporter = traced
    helpers = [helper_agent(f"helper{i}", str(i)) for i in range(count)]
    manager_model = ScriptedModel([
        ScriptedReply(tool_calls=[(h.name, {"task": "answer"}) for h in helpers]),
        ScriptedReply(tool_calls=[("final_answer", {"answer": "done"})]),
    ])  # fmt: skip
    manager = ToolCallingAgent([], manager_model, managed_agents=helpers, verbosity_level=-1)
    tracer = OtelTracer(provider)
    for agent in [manager, *helpers]:
        agent.tracing.tracer = tracer
    with trace_attributes(conversation_id="conv-7", user="ada"):
        assert manager.run("ask the helpers") == "done"
    names = finished(exporter)
    for helper in helpers:
        (call,) = names[f"execute_tool {helper.name}"]
        (inner,) = names[f"invoke_agent {helper.name}"]
        assert parent_of(inner) == call.context.span_id
        assert inner.attributes["gen_ai.conversation.id"] == "conv-7"
        assert inner.attributes["user.id"] == "ada"
