"""Tools called from the model's code get `execute_tool {name}` spans under the code's span,
on every executor: the sandbox worker and a Jupyter kernel ask the host to run them, the
local executor runs them in-process (also from threads the code starts)."""

from __future__ import annotations

import json

import pytest

from agents import CodeAgent, ScriptedModel, ToolCallingAgent
from agents.observability.tool_spans import active_span
from agents.observability.tracing import trace_attributes
from tests.agents.test_tracing import STATUS_ERROR, by_name, otlp_tracer
from tests.otlp_receiver import OtlpReceiver
from tools import tool

CODE_SPAN = "execute_tool python_interpreter"
seen_spans: list = []


@tool
def add(a: int, b: int) -> int:
    """Adds two numbers.

    Args:
        a: First number.
        b: Second number.
    """
    seen_spans.append(active_span())
    return a + b


@tool
def explode(reason: str) -> str:
    """Always fails.

    Args:
        reason: Why.
    """
    raise ValueError(f"exploded: {reason}")


def code(body: str) -> str:
    return f"Thought: go.\n<code>\n{body}\n</code>"


TWO_CALLS = code("x = add(2, 3)\ny = add(a=x, b=10)\nfinal_answer(y)")
FAILING_CALL = code(
    "try:\n    explode('on purpose')\nexcept Exception as error:\n    print('caught', error)\n"
    "final_answer(add(1, 1))"
)


def traced_run(agent: CodeAgent, task: str, record_content: bool = False):
    """Run the agent with spans going to a real OTLP receiver; returns (answer, spans)."""
    with OtlpReceiver() as receiver:
        agent.tracing.tracer, provider = otlp_tracer(receiver.endpoint, record_content)
        answer = agent.run(task)
        spans = receiver.wait_for(f"invoke_agent {agent.name or type(agent).__name__}")
        provider.shutdown()
    return answer, spans


def check_two_calls(spans: list[dict]) -> None:
    names = by_name(spans)
    (code_span,) = names[CODE_SPAN]
    calls = names["execute_tool add"]
    assert len(calls) == 2
    assert all(call["parent_id"] == code_span["span_id"] for call in calls)
    assert all(call["trace_id"] == code_span["trace_id"] for call in calls)
    assert all(call["attributes"]["gen_ai.tool.name"] == "add" for call in calls)
    assert all(call["attributes"]["gen_ai.operation.name"] == "execute_tool" for call in calls)
    assert all(call["status"] != STATUS_ERROR for call in calls)
    (step,) = names["step"]
    assert code_span["parent_id"] == step["span_id"]


def check_failure(spans: list[dict]) -> None:
    names = by_name(spans)
    (code_span,) = names[CODE_SPAN]
    (failed,) = names["execute_tool explode"]
    assert failed["parent_id"] == code_span["span_id"]
    assert failed["status"] == STATUS_ERROR and "exception" in failed["events"]
    assert failed["attributes"]["error.type"] == "ValueError"
    assert "exploded: on purpose" in failed["status_message"]
    (ok,) = names["execute_tool add"]
    assert ok["status"] != STATUS_ERROR
    assert code_span["status"] != STATUS_ERROR  # the code caught it and went on


# -- the sandbox: the worker asks the host to run each tool --------------------------------


@pytest.fixture(scope="module")
def sandbox_agent():
    agent = CodeAgent([add, explode], ScriptedModel([]), executor_type="sandbox",
                      verbosity_level=-1, name="sandboxed")  # fmt: skip
    yield agent
    agent.close()


def test_a_sandboxed_code_calling_a_tool_twice_gives_two_spans_under_the_code_span(
    sandbox_agent,
):
    sandbox_agent.model = ScriptedModel([TWO_CALLS])
    answer, spans = traced_run(sandbox_agent, "add twice", record_content=True)
    assert answer == 15
    check_two_calls(spans)
    first, second = sorted(by_name(spans)["execute_tool add"], key=lambda s: s["span_id"])
    recorded = [
        (json.loads(span["attributes"]["gen_ai.tool.call.arguments"]),
         span["attributes"]["gen_ai.tool.call.result"])
        for span in (first, second)
    ]  # fmt: skip
    assert sorted(recorded, key=str) == sorted([({"a": 2, "b": 3}, "5"),
                                                ({"a": 5, "b": 10}, "15")], key=str)  # fmt: skip


def test_a_failing_tool_in_the_sandbox_records_its_error_on_its_span(sandbox_agent):
    sandbox_agent.model = ScriptedModel([FAILING_CALL])
    answer, spans = traced_run(sandbox_agent, "fail once")
    assert answer == 2
    assert "caught" in sandbox_agent.memory.steps[-1].observations
    check_failure(spans)
    # Without SMOLUI_TRACE_CONTENT, neither arguments nor results are on the spans.
    assert not any("gen_ai.tool.call.arguments" in s["attributes"] for s in spans)
    assert not any("gen_ai.tool.call.result" in s["attributes"] for s in spans)


def test_a_tool_given_bad_arguments_by_the_code_records_the_refusal(sandbox_agent):
    sandbox_agent.model = ScriptedModel([
        code("try:\n    add('two', 3)\nexcept Exception as error:\n    print(error)\nfinal_answer(0)")
    ])  # fmt: skip
    _, spans = traced_run(sandbox_agent, "bad arguments")
    (refused,) = by_name(spans)["execute_tool add"]
    assert refused["status"] == STATUS_ERROR
    assert refused["attributes"]["error.type"] == "ToolArgumentError"


# -- in-process: the local executor ----------------------------------------------------------


def local_agent(replies: list[str], **kwargs) -> CodeAgent:
    return CodeAgent([add, explode], ScriptedModel(replies), executor_type="local",
                     verbosity_level=-1, **kwargs)  # fmt: skip


def test_the_local_executor_traces_tool_calls_and_their_failures():
    answer, spans = traced_run(local_agent([TWO_CALLS]), "add twice")
    assert answer == 15
    check_two_calls(spans)
    answer, spans = traced_run(local_agent([FAILING_CALL]), "fail once")
    assert answer == 2
    check_failure(spans)


def test_tools_called_from_threads_the_code_starts_nest_under_the_code_span():
    threaded = code(
        "import threading\nresults = []\n"
        "workers = [threading.Thread(target=lambda n=n: results.append(add(n, n))) "
        "for n in range(3)]\n"
        "for w in workers: w.start()\nfor w in workers: w.join()\nfinal_answer(sorted(results))"
    )
    agent = local_agent([threaded], additional_authorized_imports=["threading"])
    answer, spans = traced_run(agent, "add in threads")
    assert answer == [0, 2, 4]
    (code_span,) = by_name(spans)[CODE_SPAN]
    calls = by_name(spans)["execute_tool add"]
    assert len(calls) == 3 and all(c["parent_id"] == code_span["span_id"] for c in calls)


def test_with_tracing_off_a_tool_call_sets_no_span_at_all():
    seen_spans.clear()
    agent = local_agent([TWO_CALLS])
    assert not agent.tracing.enabled
    assert agent.run("add twice") == 15
    assert seen_spans == [None, None]
    seen_spans.clear()
    answer, _ = traced_run(local_agent([TWO_CALLS]), "add twice")
    assert answer == 15 and len(seen_spans) == 2
    assert all(active is not None and active.span is not None for active in seen_spans)


def test_a_managed_agent_called_from_code_nests_under_its_tool_span_with_the_conversation():
    helper = ToolCallingAgent([], ScriptedModel([_final("7")]), verbosity_level=-1,
                              name="helper", description="Answers small questions.")  # fmt: skip
    manager = CodeAgent([], ScriptedModel([code("final_answer(helper(task='3 + 4?'))")]),
                        executor_type="local", managed_agents=[helper],
                        verbosity_level=-1)  # fmt: skip
    with OtlpReceiver() as receiver:
        tracer, provider = otlp_tracer(receiver.endpoint)
        manager.tracing.tracer = helper.tracing.tracer = tracer
        with trace_attributes(conversation_id="conv-9", user="hf:ada"):
            assert "7" in str(manager.run("ask the helper"))
        spans = receiver.wait_for("invoke_agent CodeAgent")
        provider.shutdown()
    names = by_name(spans)
    (code_span,) = names[CODE_SPAN]
    (call,) = names["execute_tool helper"]
    (inner,) = names["invoke_agent helper"]
    assert call["parent_id"] == code_span["span_id"]
    assert inner["parent_id"] == call["span_id"]
    # The step ran in a thread of its own: the conversation's attributes went with it.
    assert inner["attributes"]["gen_ai.conversation.id"] == "conv-9"
    assert inner["attributes"]["user.id"] == "hf:ada"


def _final(answer: str):
    from agents import ScriptedReply

    return ScriptedReply(tool_calls=[("final_answer", {"answer": answer})])


# -- a Jupyter kernel: the tool call comes back as an input request -------------------------


@pytest.mark.slow
def test_a_jupyter_kernel_s_tool_calls_get_spans_too(kernel_gateway):
    agent = CodeAgent(
        [add, explode],
        ScriptedModel([code("x = add(2, 3)\ny = add(a=x, b=10)"), FAILING_CALL]),
        executor_type="jupyter",
        executor_kwargs={"url": kernel_gateway.url, "token": kernel_gateway.token},
        verbosity_level=-1,
    )
    try:
        answer, spans = traced_run(agent, "add twice, then fail once")
    finally:
        agent.close()
    assert answer == 2
    names = by_name(spans)
    outcomes = {span["attributes"]["smolui.code.outcome"]: span for span in names[CODE_SPAN]}
    first_code, second_code = outcomes["ok"], outcomes["final_answer"]
    adds = names["execute_tool add"]
    assert len(adds) == 3
    assert sum(a["parent_id"] == first_code["span_id"] for a in adds) == 2
    (failed,) = names["execute_tool explode"]
    assert failed["parent_id"] == second_code["span_id"] and failed["status"] == STATUS_ERROR
