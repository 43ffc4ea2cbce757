"""Traces: the spans of agent runs reach a real OTLP/HTTP receiver (and the console), with
the right names, parents and GenAI attributes; with no `OTEL_*` set nothing is imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents import CodeAgent, ScriptedModel, ScriptedReply, ToolCallingAgent
from agents.errors import AgentConfigError, AgentGenerationError, ProviderServerError
from agents.observability.tracer import configured_exporters
from agents.observability.tracing import trace_attributes
from tests.otlp_receiver import OtlpReceiver
from tools import tool

ROOT = Path(__file__).resolve().parents[2]
STATUS_ERROR = 2  # opentelemetry.proto.trace.v1.Status.STATUS_CODE_ERROR
KIND_CLIENT = 3  # opentelemetry.proto.trace.v1.Span.SPAN_KIND_CLIENT


def code(body: str) -> str:
    return f"Thought: go.\n<code>\n{body}\n</code>"


@tool
def add(a: int, b: int) -> int:
    """Adds two numbers.

    Args:
        a: First number.
        b: Second number.
    """
    return a + b


def otlp_tracer(endpoint: str, record_content: bool = False):
    """An OTel tracer exporting each span at once over OTLP/HTTP to `endpoint`."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from agents.observability.otel import OtelTracer

    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(f"{endpoint}/v1/traces")))
    return OtelTracer(provider, record_content=record_content), provider


def by_name(spans: list[dict]) -> dict[str, list[dict]]:
    names: dict[str, list[dict]] = {}
    for span in spans:
        names.setdefault(span["name"], []).append(span)
    return names


def test_a_code_agent_run_reaches_an_otlp_receiver_as_a_tree_of_spans():
    model = ScriptedModel([code("1 / 0"), code("final_answer(6 * 7)")])
    agent = CodeAgent([], model, executor_type="local", verbosity_level=-1, name="calc")
    with OtlpReceiver() as receiver:
        agent.tracing.tracer, provider = otlp_tracer(receiver.endpoint)
        with trace_attributes(conversation_id="conv-123", user="ada"):
            assert agent.run("What is 6 times 7?") == 42
        spans = receiver.wait_for("invoke_agent calc")
        provider.shutdown()
    assert receiver.paths and set(receiver.paths) == {"/v1/traces"}
    names = by_name(spans)
    (run,) = names["invoke_agent calc"]
    steps = names["step"]
    chats = names["chat scripted"]
    codes = names["execute_tool python_interpreter"]
    assert len(steps) == 2 and len(chats) == 2 and len(codes) == 2
    assert len({s["trace_id"] for s in spans}) == 1
    assert run["parent_id"] is None
    assert all(step["parent_id"] == run["span_id"] for step in steps)
    step_ids = {step["span_id"] for step in steps}
    assert all(span["parent_id"] in step_ids for span in chats + codes)
    assert run["attributes"]["gen_ai.operation.name"] == "invoke_agent"
    assert run["attributes"]["gen_ai.agent.name"] == "calc"
    assert run["attributes"]["gen_ai.conversation.id"] == "conv-123"
    assert run["attributes"]["user.id"] == "ada"
    assert run["attributes"]["smolui.run.outcome"] == "success"
    chat = chats[0]["attributes"]
    assert chat["gen_ai.system"] == "scripted" and chat["gen_ai.request.model"] == "scripted"
    assert chat["gen_ai.usage.input_tokens"] > 0 and chat["gen_ai.usage.output_tokens"] > 0
    assert chat["gen_ai.response.finish_reasons"] == ["stop"]
    assert chats[0]["kind"] == KIND_CLIENT
    total_in = sum(c["attributes"]["gen_ai.usage.input_tokens"] for c in chats)
    assert run["attributes"]["gen_ai.usage.input_tokens"] == total_in
    failed, answered = sorted(codes, key=lambda s: s["attributes"]["smolui.code.outcome"])
    assert failed["attributes"]["smolui.code.outcome"] == "error"
    assert failed["status"] == STATUS_ERROR and "exception" in failed["events"]
    assert failed["attributes"]["error.type"] == "AgentExecutionError"
    assert answered["attributes"]["smolui.code.outcome"] == "final_answer"
    assert answered["status"] != STATUS_ERROR and answered["duration_ns"] > 0
    # Without SMOLUI_TRACE_CONTENT, no prompt, output or code is recorded.
    recorded = {key for span in spans for key in span["attributes"]}
    assert not recorded & {"gen_ai.input.messages", "gen_ai.output.messages"}
    assert "gen_ai.tool.call.arguments" not in recorded


def test_tool_calls_get_execute_tool_spans_under_their_step():
    model = ScriptedModel([
        ScriptedReply(tool_calls=[("add", {"a": 2, "b": 3})]),
        ScriptedReply(tool_calls=[("final_answer", {"answer": "5"})]),
    ])  # fmt: skip
    agent = ToolCallingAgent([add], model, verbosity_level=-1)
    with OtlpReceiver() as receiver:
        agent.tracing.tracer, provider = otlp_tracer(receiver.endpoint, record_content=True)
        assert agent.run("add 2 and 3") == "5"
        spans = receiver.wait_for("invoke_agent ToolCallingAgent")
        provider.shutdown()
    names = by_name(spans)
    (tool_span,) = names["execute_tool add"]
    step_of = {s["span_id"]: s for s in names["step"]}
    assert tool_span["parent_id"] in step_of
    assert step_of[tool_span["parent_id"]]["attributes"]["smolui.step.number"] == 1
    assert tool_span["attributes"]["gen_ai.tool.name"] == "add"
    assert json.loads(tool_span["attributes"]["gen_ai.tool.call.arguments"]) == {"a": 2, "b": 3}
    assert tool_span["attributes"]["gen_ai.tool.call.result"] == "5"
    chat = names["chat scripted"][0]["attributes"]
    assert chat["gen_ai.response.finish_reasons"] == ["tool_calls"]
    assert "add 2 and 3" in chat["gen_ai.input.messages"]


def test_a_managed_agent_run_nests_under_its_managers_tool_span():
    helper_model = ScriptedModel([ScriptedReply(tool_calls=[("final_answer", {"answer": "7"})])])
    helper = ToolCallingAgent([], helper_model, verbosity_level=-1, name="helper",
                              description="Answers small questions.")  # fmt: skip
    manager_model = ScriptedModel([
        ScriptedReply(tool_calls=[("helper", {"task": "what is 3 + 4?"})]),
        ScriptedReply(tool_calls=[("final_answer", {"answer": "done"})]),
    ])  # fmt: skip
    manager = ToolCallingAgent([], manager_model, managed_agents=[helper], verbosity_level=-1)
    with OtlpReceiver() as receiver:
        tracer, provider = otlp_tracer(receiver.endpoint)
        manager.tracing.tracer = helper.tracing.tracer = tracer
        assert manager.run("ask the helper") == "done"
        spans = receiver.wait_for("invoke_agent ToolCallingAgent")
        provider.shutdown()
    names = by_name(spans)
    (call,) = names["execute_tool helper"]
    (inner,) = names["invoke_agent helper"]
    assert inner["parent_id"] == call["span_id"]
    assert len({span["trace_id"] for span in spans}) == 1


def test_a_provider_failure_is_recorded_on_the_model_and_run_spans():
    model = ScriptedModel([ScriptedReply(error=ProviderServerError("server said 503"))])
    agent = CodeAgent([], model, executor_type="local", verbosity_level=-1)
    with OtlpReceiver() as receiver:
        agent.tracing.tracer, provider = otlp_tracer(receiver.endpoint)
        with pytest.raises(AgentGenerationError):
            agent.run("anything")
        spans = receiver.wait_for("invoke_agent CodeAgent")
        provider.shutdown()
    names = by_name(spans)
    (run,) = names["invoke_agent CodeAgent"]
    assert run["status"] == STATUS_ERROR and run["attributes"]["smolui.run.outcome"] == "error"
    assert "503" in run["status_message"]
    chat = names["chat scripted"][0]
    assert chat["status"] == STATUS_ERROR and "exception" in chat["events"]


def _run_in_subprocess(env: dict[str, str], body: str) -> subprocess.CompletedProcess:
    script = (
        "import sys\n"
        "from agents import CodeAgent, ScriptedModel\n"
        "model = ScriptedModel(['Thought: go.\\n<code>\\nfinal_answer(6 * 7)\\n</code>'])\n"
        "agent = CodeAgent([], model, executor_type='local', verbosity_level=-1)\n"
        "assert agent.run('What is 6 times 7?') == 42\n" + body
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "SMOLUI_TRACE"))}
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        timeout=120,
    )


def test_with_no_otel_variables_opentelemetry_is_not_even_imported():
    result = _run_in_subprocess(
        {}, "print('OTEL', sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
    )
    assert result.returncode == 0, result.stderr
    assert "OTEL []" in result.stdout


def test_the_otel_environment_sends_spans_with_content_to_the_otlp_endpoint():
    with OtlpReceiver() as receiver:
        result = _run_in_subprocess(
            {
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
                "OTEL_SERVICE_NAME": "smolui-test",
                "SMOLUI_TRACE_CONTENT": "1",
            },
            "",
        )
        assert result.returncode == 0, result.stderr
        spans = receiver.wait_for("invoke_agent CodeAgent")
    names = by_name(spans)
    (run,) = names["invoke_agent CodeAgent"]
    assert run["resource"]["service.name"] == "smolui-test"
    assert run["scope"] == "smolui.agents"
    assert run["attributes"]["gen_ai.input.messages"] == "What is 6 times 7?"
    assert run["attributes"]["gen_ai.output.messages"] == "42"
    (code_span,) = names["execute_tool python_interpreter"]
    assert code_span["attributes"]["gen_ai.tool.call.arguments"] == "final_answer(6 * 7)"


def test_the_console_exporter_prints_the_spans():
    result = _run_in_subprocess({"OTEL_TRACES_EXPORTER": "console"}, "")
    assert result.returncode == 0, result.stderr
    decoder, text, spans = json.JSONDecoder(), result.stdout, []
    index = text.find("{")
    while index != -1:
        span, end = decoder.raw_decode(text, index)
        spans.append(span)
        index = text.find("{", end)
    names = {span["name"] for span in spans}
    assert {"invoke_agent CodeAgent", "step", "chat scripted"} <= names
    assert "execute_tool python_interpreter" in names
    run = next(s for s in spans if s["name"] == "invoke_agent CodeAgent")
    assert run["parent_id"] is None and run["attributes"]["gen_ai.request.model"] == "scripted"


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, ()),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, ("otlp",)),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, ("otlp",)),
        ({"OTEL_TRACES_EXPORTER": "console, otlp"}, ("console", "otlp")),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}, ()),
        ({"OTEL_TRACES_EXPORTER": "console", "OTEL_SDK_DISABLED": "true"}, ()),
    ],
)
def test_the_otel_variables_choose_the_exporters(environ, expected):
    assert configured_exporters(environ) == expected


def test_an_unknown_exporter_is_a_configuration_error_that_says_what_works():
    with pytest.raises(AgentConfigError, match="console, otlp"):
        configured_exporters({"OTEL_TRACES_EXPORTER": "zipkin"})


def test_streamed_model_calls_pass_their_deltas_through_the_chat_span():
    from agents.models.messages import ChatMessageStreamDelta

    model = ScriptedModel([code("final_answer('streamed')")], chunk_size=4)
    agent = CodeAgent([], model, executor_type="local", verbosity_level=-1, stream_outputs=True)
    with OtlpReceiver() as receiver:
        agent.tracing.tracer, provider = otlp_tracer(receiver.endpoint)
        events = list(agent.run("stream it", stream=True))
        spans = receiver.wait_for("invoke_agent CodeAgent")
        provider.shutdown()
    deltas = [e for e in events if isinstance(e, ChatMessageStreamDelta)]
    assert len(deltas) > 3 and events[-1].output == "streamed"
    (chat,) = by_name(spans)["chat scripted"]
    assert chat["attributes"]["gen_ai.response.finish_reasons"] == ["stop"]


@pytest.mark.parametrize(
    ("raw", "calls", "expected"),
    [
        ({"choices": [{"finish_reason": "length"}]}, None, "length"),
        (None, [{"id": "1", "type": "function", "function": {"name": "f", "arguments": {}}}],
         "tool_calls"),
        (None, None, "stop"),
    ],
)  # fmt: skip
def test_the_finish_reason_comes_from_the_backend_when_it_gives_one(raw, calls, expected):
    from agents.models.messages import ChatMessage
    from agents.observability.genai_attributes import finish_reason

    answer = ChatMessage(role="assistant", content="x", raw=raw, tool_calls=calls)
    assert finish_reason(answer) == expected


def test_a_run_stopped_by_its_consumer_ends_its_spans_as_interrupted_not_failed():
    model = ScriptedModel([code("x = 1"), code("final_answer(x)")])
    agent = CodeAgent([], model, executor_type="local", verbosity_level=-1)
    with OtlpReceiver() as receiver:
        agent.tracing.tracer, provider = otlp_tracer(receiver.endpoint)
        events = agent.run("stop me", stream=True)
        next(events)  # the first step has begun
        events.close()
        spans = receiver.wait_for("invoke_agent CodeAgent")
        provider.shutdown()
    (run,) = by_name(spans)["invoke_agent CodeAgent"]
    assert run["attributes"]["smolui.run.outcome"] == "interrupted"
    assert run["status"] != STATUS_ERROR
    (step,) = by_name(spans)["step"]  # the open step span was ended too
    assert step["attributes"]["smolui.step.interrupted"] is True
    assert step["status"] != STATUS_ERROR
