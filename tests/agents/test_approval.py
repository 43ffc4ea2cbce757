"""Approve before it runs: every decision (run, edit, skip, stop) on both agent types, on the
sandbox and the local executor, the policy's shapes, an approver's mistakes, and the answers
kept in memory and in traces. Tools called from code: `test_approval_from_code.py`."""

from __future__ import annotations

import json

import pytest

from agents import (
    ApprovalDecision,
    CodeAgent,
    ScriptedModel,
    ScriptedReply,
    ToolCallingAgent,
)
from agents.approval import ApprovalPolicy
from agents.errors import AgentConfigError, AgentStoppedError
from agents.memory.io import steps_from_data, steps_to_data
from tests.agents.approval_helpers import EXECUTORS, Approver, code, make_tools, texts
from tests.otlp_receiver import OtlpReceiver

# -- the policy ----------------------------------------------------------------------------


def test_the_policy_shapes_and_their_mistakes():
    send_email, shout = make_tools([])
    tools = {"send_email": send_email, "shout": shout}
    never = ApprovalPolicy.parse("never", tools)
    assert not never.active and not never.holds_tool("send_email", send_email)
    assert ApprovalPolicy.parse("code", tools).code
    assert not ApprovalPolicy.parse("code", tools).holds_tool("send_email", send_email)
    marked = ApprovalPolicy.parse("tools", tools)
    assert marked.holds_tool("send_email", send_email) and not marked.holds_tool("shout", shout)
    named = ApprovalPolicy.parse(["shout"], tools)
    assert named.holds_tool("shout", shout) and named.holds_tool("send_email", send_email)
    every = ApprovalPolicy.parse("all", tools)
    assert every.code and every.holds_tool("shout", shout)
    assert not every.holds_tool("final_answer", shout)  # runs nothing: never held
    combined = ApprovalPolicy.parse({"code": True, "tools": ["shout"]}, tools)
    assert combined.code and combined.holds_tool("shout", shout)
    with pytest.raises(AgentConfigError, match="send_mail, which is not one of"):
        ApprovalPolicy.parse(["send_mail"], tools)
    with pytest.raises(AgentConfigError, match="approve= takes"):
        ApprovalPolicy.parse("sometimes", tools)
    with pytest.raises(AgentConfigError, match="approve= takes"):
        ApprovalPolicy.parse({"code": "yes"}, tools)


def test_a_policy_without_an_approver_or_a_bad_approver_is_refused_at_construction():
    model = ScriptedModel([code("final_answer(1)")])
    with pytest.raises(AgentConfigError, match="no approver= was given"):
        CodeAgent([], model, executor_type="local", approve="code")
    with pytest.raises(AgentConfigError, match="must be a callable"):
        ToolCallingAgent([], model, approve="all", approver="yes")
    with pytest.raises(AgentConfigError, match="edit takes code=... .* or arguments"):
        ApprovalDecision.edit()


# -- a CodeAgent's code block --------------------------------------------------------------


@pytest.mark.parametrize("executor", EXECUTORS)
def test_code_runs_when_approved_and_the_request_says_what_and_why(executor):
    approver = Approver(ApprovalDecision.run())
    model = ScriptedModel([code("final_answer(6 * 7)", thought="Thought: multiply.")])
    agent = CodeAgent([], model, executor_type=executor, approve="code", approver=approver)
    try:
        assert agent.run("six times seven") == 42
    finally:
        agent.close()
    (request,) = approver.requests
    assert (request.kind, request.code, request.step_number) == ("code", "final_answer(6 * 7)", 1)
    assert request.tool_name is None and request.arguments is None
    assert request.thought == "Thought: multiply."
    (record,) = agent.memory.steps[1].approvals
    assert (record.kind, record.decision, record.ran) == ("code", "run", "final_answer(6 * 7)")


@pytest.mark.parametrize("executor", EXECUTORS)
def test_edited_code_runs_and_memory_records_what_ran(executor):
    approver = Approver(ApprovalDecision.edit(code="final_answer(2 + 2)"))
    agent = CodeAgent(
        [],
        ScriptedModel([code("final_answer(1 + 1)")]),
        executor_type=executor,
        approve="code",
        approver=approver,
    )
    try:
        assert agent.run("add") == 4
    finally:
        agent.close()
    step = agent.memory.steps[1]
    assert step.code_action == "final_answer(2 + 2)"
    assert step.tool_calls[0].arguments == "final_answer(2 + 2)"
    assert "edited it before it ran" in step.observations
    (record,) = step.approvals
    assert (record.decision, record.proposed, record.ran) == (
        "edit",
        "final_answer(1 + 1)",
        "final_answer(2 + 2)",
    )
    assert agent.memory.return_full_code() == "final_answer(2 + 2)"


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_skipped_code_blocks_reason_is_what_the_model_reads_next(executor):
    seen = []

    def second(messages):
        seen.append(messages)
        return code("final_answer('from the cache')")

    sent: list = []
    send_email, _ = make_tools(sent)
    approver = Approver(ApprovalDecision.skip("use the cache instead"), ApprovalDecision.run())
    agent = CodeAgent(
        [send_email],
        ScriptedModel([code("send_email(to='a', body='x')"), second]),
        executor_type=executor,
        approve="code",
        approver=approver,
    )
    try:
        assert agent.run("answer") == "from the cache"
    finally:
        agent.close()
    assert sent == []  # the skipped code never ran
    step = agent.memory.steps[1]
    assert step.code_action is None and step.error is None
    assert "use the cache instead" in step.observations
    assert "use the cache instead" in texts(seen[0])  # the next model call's input
    assert step.approvals[0].decision == "skip" and step.approvals[0].ran is None


@pytest.mark.parametrize("executor", EXECUTORS)
def test_stop_ends_the_run_cleanly_before_the_code_runs(executor):
    sent: list = []
    send_email, _ = make_tools(sent)
    model = ScriptedModel([code("send_email(to='a', body='x')"), code("final_answer(1)")])
    agent = CodeAgent(
        [send_email],
        model,
        executor_type=executor,
        approve="code",
        approver=Approver(ApprovalDecision.stop("not today")),
    )
    try:
        result = agent.run("mail", return_full_result=True)
    finally:
        agent.close()
    assert result.state == "interrupted"
    assert isinstance(result.error, AgentStoppedError) and "not today" in result.error.message
    assert sent == [] and model.remaining == 1  # nothing ran, the model was not asked again
    step = agent.memory.steps[-1]
    assert isinstance(step.error, AgentStoppedError)
    assert step.approvals[0].decision == "stop"


def test_never_asks_nothing_and_sends_the_executor_the_tools_themselves():
    sent: list = []
    send_email, _ = make_tools(sent)
    agent = CodeAgent(
        [send_email],
        ScriptedModel([code("final_answer(send_email(to='a', body='b'))")]),
        executor_type="local",
    )
    assert agent.run("mail") == "sent to a" and sent == [("a", "b")]
    assert agent.approval.held_tools({"send_email": send_email})["send_email"] is send_email
    assert agent.memory.steps[1].approvals is None


# -- a ToolCallingAgent's tool calls -------------------------------------------------------


def calling(*calls, text: str = "") -> ScriptedReply:
    return ScriptedReply(content=text, tool_calls=list(calls))


def tool_agent(sent: list, replies: list, approver: Approver, approve="tools") -> ToolCallingAgent:
    return ToolCallingAgent(
        list(make_tools(sent)), ScriptedModel(replies), approve=approve, approver=approver
    )


def test_tool_calls_run_when_approved_and_unheld_tools_are_not_asked_about():
    sent: list = []
    approver = Approver(ApprovalDecision.run())
    replies = [
        calling(("send_email", {"to": "a", "body": "hi"}), ("shout", {"text": "x"}), text="Mail."),
        calling(("final_answer", {"answer": "done"})),
    ]
    agent = tool_agent(sent, replies, approver)
    assert agent.run("mail") == "done"
    assert sent == [("a", "hi")]
    (request,) = approver.requests  # shout is not held, final_answer never is
    assert (request.kind, request.tool_name, request.code) == ("tool", "send_email", None)
    assert request.arguments == {"to": "a", "body": "hi"} and request.thought == "Mail."
    assert "X" in agent.memory.steps[1].observations


def test_an_edited_tool_call_runs_with_the_new_arguments_as_memory_records():
    sent: list = []
    approver = Approver(ApprovalDecision.edit(arguments={"to": "b", "body": "hi"}))
    replies = [
        calling(("send_email", {"to": "a", "body": "hi"})),
        calling(("final_answer", {"answer": "done"})),
    ]
    agent = tool_agent(sent, replies, approver)
    assert agent.run("mail") == "done"
    assert sent == [("b", "hi")]
    step = agent.memory.steps[1]
    assert step.tool_calls[0].arguments == {"to": "b", "body": "hi"}
    assert step.approvals[0].ran == {"to": "b", "body": "hi"}
    assert "sent to b" in step.observations


def test_a_skipped_tool_calls_reason_reaches_the_model_and_the_others_run():
    sent: list = []
    seen = []

    def second(messages):
        seen.append(messages)
        return calling(("final_answer", {"answer": "ok"}))

    replies = [
        calling(("send_email", {"to": "a", "body": "hi"}), ("shout", {"text": "x"})),
        second,
    ]
    agent = tool_agent(sent, replies, Approver(ApprovalDecision.skip("ask Bob first")))
    assert agent.run("mail") == "ok"
    assert sent == []
    step = agent.memory.steps[1]
    assert "ask Bob first" in step.observations and "X" in step.observations
    assert step.error is None
    assert "ask Bob first" in texts(seen[0])


def test_stop_on_a_second_call_runs_none_of_the_steps_calls():
    sent: list = []
    approver = Approver(ApprovalDecision.run(), ApprovalDecision.stop())
    replies = [
        calling(("send_email", {"to": "a", "body": "1"}), ("send_email", {"to": "b", "body": "2"})),
        calling(("final_answer", {"answer": "never"})),
    ]
    agent = tool_agent(sent, replies, approver)
    with pytest.raises(AgentStoppedError, match="call to send_email stopped the run"):
        agent.run("mail")
    assert sent == [] and len(approver.requests) == 2
    assert [r.decision for r in agent.memory.steps[-1].approvals] == ["run", "stop"]


# -- an approver's mistakes are the developer's --------------------------------------------


@pytest.mark.parametrize("executor", EXECUTORS)
def test_an_approver_that_raises_or_answers_wrongly_ends_the_run_with_a_clear_error(executor):
    def broken(request):
        raise RuntimeError("no terminal")

    for approver, message in (
        (broken, "raised RuntimeError: no terminal"),
        (lambda r: "yes", "returned 'yes'"),
    ):
        agent = CodeAgent(
            list(make_tools([])),
            ScriptedModel([code("send_email(to='a', body='x')")]),
            executor_type=executor,
            approve="tools",
            approver=approver,
        )
        try:
            with pytest.raises(AgentConfigError, match=message):
                agent.run("mail")
        finally:
            agent.close()
    agent = tool_agent(
        [],
        [calling(("send_email", {"to": "a", "body": "x"}))],
        Approver(ApprovalDecision.edit(code="x")),
    )
    with pytest.raises(AgentConfigError, match="without arguments="):
        agent.run("mail")


# -- the record: memory, storage, traces ---------------------------------------------------


def test_answers_are_kept_in_the_steps_data_and_survive_storage():
    approver = Approver(ApprovalDecision.skip("no"), ApprovalDecision.edit(code="final_answer(5)"))
    agent = CodeAgent(
        [],
        ScriptedModel([code("final_answer(1)"), code("final_answer(2)")]),
        executor_type="local",
        approve="code",
        approver=approver,
    )
    assert agent.run("n") == 5
    data = json.loads(json.dumps(steps_to_data(agent.memory.steps)))
    restored = steps_from_data(data)
    assert restored[1].approvals == agent.memory.steps[1].approvals
    assert restored[2].approvals[0].ran == "final_answer(5)"
    exported = agent.memory.get_succinct_steps()
    assert exported[1]["approvals"][0]["decision"] == "skip"
    assert exported[1]["approvals"][0]["reason"] == "no"


def test_answers_are_span_events_on_the_step():
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from agents.observability.otel import OtelTracer

    approver = Approver(ApprovalDecision.run())
    agent = CodeAgent(
        [],
        ScriptedModel([code("final_answer(1)")]),
        executor_type="local",
        name="held",
        approve="code",
        approver=approver,
    )
    with OtlpReceiver() as receiver:
        provider = TracerProvider()
        exporter = OTLPSpanExporter(f"{receiver.endpoint}/v1/traces")
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        agent.tracing.tracer = OtelTracer(provider)
        assert agent.run("one") == 1
        spans = receiver.wait_for("invoke_agent held")
        provider.shutdown()
    (step,) = [span for span in spans if span["name"] == "step"]
    assert step["events"] == ["smolui.approval"]


def test_an_interrupt_while_waiting_runs_nothing_and_a_clone_keeps_the_policy():
    sent: list = []
    holder = {}

    def interrupted_meanwhile(request):
        holder["agent"].interrupt()  # e.g. the user pressed Stop while the question was open
        return ApprovalDecision.run()

    agent = tool_agent(
        sent, [calling(("send_email", {"to": "a", "body": "x"}))], interrupted_meanwhile
    )
    holder["agent"] = agent
    with pytest.raises(AgentStoppedError, match="interrupted while it waited"):
        agent.run("mail")
    assert sent == []
    twin = agent.clone()
    assert twin.approval.policy == agent.approval.policy
    assert twin.approval.approver is interrupted_meanwhile
