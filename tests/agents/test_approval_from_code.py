"""Tools called from a CodeAgent's code are held on the host (sandbox and local executors):
edited and run, skipped (the code fails with the reason), stopped (later calls refused), and
the wait for an answer is not the code's time."""

from __future__ import annotations

import pytest

from agents import ApprovalDecision, CodeAgent, ScriptedModel
from agents.errors import AgentStoppedError
from agents.executors import held_tools
from agents.executors.sandbox import execution as sandbox_execution
from tests.agents.approval_helpers import EXECUTORS, Approver, code, make_tools, texts
from tests.agents.moved_clock import MovedClock


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_tool_called_from_code_is_held_edited_and_run(executor):
    sent: list = []
    send_email, shout = make_tools(sent)
    approver = Approver(ApprovalDecision.edit(arguments={"to": "b", "body": "hi"}))
    body = "r = send_email('a', body='hi')\nfinal_answer(r + ' ' + shout(text='ok'))"
    agent = CodeAgent(
        [send_email, shout],
        ScriptedModel([code(body)]),
        executor_type=executor,
        approve="tools",
        approver=approver,
    )
    try:
        assert agent.run("mail") == "sent to b OK"
    finally:
        agent.close()
    assert sent == [("b", "hi")]
    (request,) = approver.requests
    assert (request.kind, request.tool_name, request.code) == ("tool", "send_email", body)
    assert request.arguments == {"to": "a", "body": "hi"} and request.step_number == 1
    (record,) = agent.memory.steps[1].approvals
    assert (record.decision, record.ran) == ("edit", {"to": "b", "body": "hi"})


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_skipped_call_from_code_fails_in_the_code_with_the_reason(executor):
    sent: list = []
    seen = []

    def second(messages):
        seen.append(messages)
        return code("final_answer('gave up')")

    agent = CodeAgent(
        list(make_tools(sent)),
        ScriptedModel([code("send_email(to='a', body='x')"), second]),
        executor_type=executor,
        approve=["send_email"],
        approver=Approver(ApprovalDecision.skip("wrong address")),
    )
    try:
        assert agent.run("mail") == "gave up"
    finally:
        agent.close()
    assert sent == []
    assert "wrong address" in agent.memory.steps[1].error.message
    assert "wrong address" in texts(seen[0])


@pytest.mark.parametrize("executor", EXECUTORS)
def test_stop_from_a_call_in_code_refuses_later_calls_and_ends_the_run(executor):
    sent: list = []
    approver = Approver(ApprovalDecision.stop())
    body = "for to in 'abc':\n    try:\n        send_email(to=to, body='x')\n    except Exception:\n        pass"
    model = ScriptedModel([code(body), code("final_answer(1)")])
    agent = CodeAgent(
        list(make_tools(sent)), model, executor_type=executor, approve="tools", approver=approver
    )
    try:
        with pytest.raises(AgentStoppedError):
            agent.run("mail")
    finally:
        agent.close()
    assert sent == [] and len(approver.requests) == 1 and model.remaining == 1


def test_waiting_for_an_answer_does_not_count_against_the_sandbox_deadline(monkeypatch):
    clock = MovedClock()  # the sandbox's deadline and the held call's wait both read it
    monkeypatch.setattr(sandbox_execution, "time", clock)
    monkeypatch.setattr(held_tools, "time", clock)

    def slow_person(request):
        clock.advance(3600)  # an hour to answer: far past the timeout and the tools' allowance
        return ApprovalDecision.run()

    sent: list = []
    agent = CodeAgent(
        list(make_tools(sent)),
        ScriptedModel([code("final_answer(send_email(to='a', body='x'))")]),
        executor_kwargs={"timeout": 20},
        approve="tools",
        approver=slow_person,
    )
    try:
        assert agent.run("mail") == "sent to a"
    finally:
        agent.close()
