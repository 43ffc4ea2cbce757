"""Approval on a remote Jupyter kernel: the kernel's tool calls reach the host, which holds
them (edit, skip, stop), and the code block itself is asked about before it is sent."""

from __future__ import annotations

import pytest

from agents import ApprovalDecision, CodeAgent, ScriptedModel
from agents.errors import AgentConfigError, AgentStoppedError
from agents.executors import held_tools
from agents.executors.remote import execution as remote_execution
from tests.agents.moved_clock import MovedClock
from tests.kernel_gateway import KernelGateway, gateway_available
from tools import tool

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not gateway_available(), reason="pip install jupyter_kernel_gateway"),
]

SENT: list = []


@tool
def send_email(to: str, body: str) -> str:
    """Sends an email.

    Args:
        to: Who gets it.
        body: What it says.
    """
    SENT.append((to, body))
    return f"sent to {to}"


@pytest.fixture
def gateway(kernel_gateway):
    SENT.clear()
    return kernel_gateway  # one gateway for the session (tests/conftest.py)


def code(body: str) -> str:
    return f"Thought: go.\n<code>\n{body}\n</code>"


def make_agent(gateway: KernelGateway, replies: list, approver, approve=("send_email",), **kwargs):
    return CodeAgent(
        [send_email],
        ScriptedModel(replies),
        executor_type="jupyter",
        executor_kwargs={"url": gateway.url, "token": gateway.token, "timeout": 20, **kwargs},
        approve=list(approve) if isinstance(approve, tuple) else approve,
        approver=approver,
        verbosity_level=-1,
    )


def test_a_call_from_the_kernel_is_held_edited_and_run_and_the_wait_is_not_its_time(
    gateway, monkeypatch
):
    clock = MovedClock()  # the execution's deadline and the held call's wait both read it
    monkeypatch.setattr(remote_execution, "time", clock)
    monkeypatch.setattr(held_tools, "time", clock)
    requests = []

    def slow_editor(request):
        requests.append(request)
        clock.advance(3600)  # an hour to answer: far past the timeout and the tools' allowance
        return ApprovalDecision.edit(arguments={"to": "b", "body": request.arguments["body"]})

    body = "final_answer(send_email('a', body='hi'))"
    agent = make_agent(gateway, [code(body)], slow_editor)
    try:
        assert agent.run("mail") == "sent to b"
    finally:
        agent.close()
    assert SENT == [("b", "hi")]
    (request,) = requests
    assert (request.kind, request.tool_name, request.code) == ("tool", "send_email", body)
    assert request.arguments == {"to": "a", "body": "hi"}
    assert agent.memory.steps[1].approvals[0].ran == {"to": "b", "body": "hi"}


def test_skip_reaches_the_model_and_stop_ends_the_run(gateway):
    seen = []

    def second(messages):
        seen.append(messages)
        return code("send_email(to='c', body='again')")

    answers = [ApprovalDecision.skip("wrong address"), ApprovalDecision.stop()]
    model_replies = [code("send_email(to='a', body='x')"), second, code("final_answer(1)")]
    agent = make_agent(gateway, model_replies, lambda request: answers.pop(0))
    try:
        with pytest.raises(AgentStoppedError):
            agent.run("mail")
    finally:
        agent.close()
    assert SENT == []
    assert "wrong address" in agent.memory.steps[1].error.message
    assert "wrong address" in str(seen[0])
    assert [r.decision for s in agent.memory.steps[1:] for r in s.approvals] == ["skip", "stop"]


def test_code_is_asked_about_before_it_reaches_the_kernel(gateway):
    agent = make_agent(
        gateway,
        [code("final_answer(send_email(to='a', body='x'))"), code("final_answer(1 + 1)")],
        lambda request: (
            ApprovalDecision.skip("no mail")
            if request.code.count("send_email")
            else ApprovalDecision.run()
        ),
        approve="code",
    )
    try:
        assert agent.run("mail") == 2
    finally:
        agent.close()
    assert SENT == []


def test_a_held_tool_cannot_run_in_the_kernel(gateway):
    agent = make_agent(
        gateway,
        [code("final_answer(1)")],
        lambda r: ApprovalDecision.run(),
        approve=["send_email"],
        tools_in_kernel=["send_email"],
    )
    try:
        with pytest.raises(AgentConfigError, match="leave it out of tools_in_kernel"):
            agent.run("mail")
    finally:
        agent.close()
