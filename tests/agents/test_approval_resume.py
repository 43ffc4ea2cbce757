"""`agent.resume`: a run held for approval is continued by a fresh agent from its memory as
data, the held step's model output given, so the model is not called for that step.

The first agent's approver does what the app does when it asks: it keeps the request and the
memory as data at that moment, and the process "dies" (the approver stops the run). A second
agent, built fresh with a model whose script starts *after* the held step, restores that memory
and resumes; each decision (run, edit, skip, stop) then applies to the held action.
"""

from __future__ import annotations

import pytest

from agents import ApprovalDecision, CodeAgent, ScriptedModel, ScriptedReply, ToolCallingAgent
from agents.errors import AgentConfigError, AgentStoppedError
from agents.memory.io import steps_from_data, steps_to_data
from agents.memory.steps import ActionStep
from tests.agents.approval_helpers import EXECUTORS, Approver, code, make_tools, texts


class Keeper:
    """Approves the first `approve` requests, then keeps the next one and the memory as data
    (what the app stores) and stops, as a process that dies while it waits."""

    def __init__(self, approve: int = 0):
        self.approve = approve
        self.request = None
        self.memory = None
        self.agent = None

    def __call__(self, request):
        if self.approve:
            self.approve -= 1
            return ApprovalDecision.run()
        self.request = request
        self.memory = steps_to_data(self.agent.memory.steps)
        return ApprovalDecision.stop("the process died")


def held_code_run(executor: str) -> Keeper:
    """A CodeAgent that runs step 1 approved and is held at step 2."""
    keeper = Keeper(approve=1)
    replies = [code("x = 6\nprint(x)"), code("final_answer(x * 7)", thought="Thought: multiply.")]
    agent = CodeAgent([], ScriptedModel(replies), executor_type=executor, approve="code",
                      approver=keeper)  # fmt: skip
    keeper.agent = agent
    try:
        with pytest.raises(AgentStoppedError):
            agent.run("six times seven, in two steps")
    finally:
        agent.close()
    assert keeper.request.step_number == 2
    return keeper


def fresh_code_agent(executor: str, replies: list, answer: ApprovalDecision, keeper: Keeper):
    approver = Approver(answer)
    model = ScriptedModel(replies)
    agent = CodeAgent([], model, executor_type=executor, approve="code", approver=approver)
    agent.restore_memory(steps_from_data(keeper.memory))
    return agent, model, approver


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_resumed_code_step_runs_the_held_code_without_calling_the_model(executor):
    keeper = held_code_run(executor)
    # The variables did not survive the "restart": the held code is edited to define x.
    edit = ApprovalDecision.edit(code="x = 6\nfinal_answer(x * 7)")
    agent, model, approver = fresh_code_agent(executor, [], edit, keeper)
    try:
        result = agent.resume(keeper.request.model_output, return_full_result=True)
    finally:
        agent.close()
    assert result.output == 42 and result.state == "success"
    assert model.calls == [], "the model was not asked for the held step"
    (request,) = approver.requests
    assert (request.kind, request.step_number) == ("code", 2)
    assert request.code == "final_answer(x * 7)" and request.thought == "Thought: multiply."
    steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    assert [s.step_number for s in steps] == [1, 2]
    assert steps[1].code_action == "x = 6\nfinal_answer(x * 7)"
    assert steps[1].approvals[0].decision == "edit"


@pytest.mark.parametrize("executor", EXECUTORS)
def test_a_resumed_skip_runs_nothing_and_the_next_step_asks_the_model(executor):
    keeper = held_code_run(executor)
    replies = [code("final_answer('skipped, as asked')")]
    skip = ApprovalDecision.skip("No multiplying today.")
    agent, model, approver = fresh_code_agent(executor, replies, skip, keeper)
    approver.answers.append(ApprovalDecision.run())
    try:
        assert agent.resume(keeper.request.model_output) == "skipped, as asked"
    finally:
        agent.close()
    assert len(model.calls) == 1, "called for step 3 only"
    assert "No multiplying today." in texts(model.calls[0])
    assert [r.step_number for r in approver.requests] == [2, 3]


def test_a_resumed_stop_ends_the_run_and_the_text_of_the_output_is_enough():
    keeper = held_code_run("local")
    stop = ApprovalDecision.stop("Not now.")
    agent, model, _ = fresh_code_agent("local", [], stop, keeper)
    with pytest.raises(AgentStoppedError, match="Not now"):
        agent.resume(keeper.request.model_output.text)
    assert model.calls == []


def test_resume_needs_a_task_in_memory_and_a_message():
    agent = CodeAgent([], ScriptedModel([]), executor_type="local")
    with pytest.raises(AgentConfigError, match="memory holds none"):
        agent.resume("<code>\nfinal_answer(1)\n</code>")
    keeper = held_code_run("local")
    agent.restore_memory(steps_from_data(keeper.memory))
    with pytest.raises(AgentConfigError, match="ChatMessage or a string"):
        agent.resume(42)


def test_a_resumed_tool_calling_step_runs_the_held_call_once_without_calling_the_model():
    sent: list = []
    keeper = Keeper()
    held = ScriptedReply("Mail the boss.", tool_calls=[("send_email", {"to": "a", "body": "hi"})])
    first = ToolCallingAgent(list(make_tools(sent)), ScriptedModel([held]), approve="tools",
                             approver=keeper)  # fmt: skip
    keeper.agent = first
    with pytest.raises(AgentStoppedError):
        first.run("mail the boss")
    assert sent == [] and keeper.request.tool_name == "send_email"

    answer = ScriptedReply("", tool_calls=[("final_answer", {"answer": "mailed"})])
    model = ScriptedModel([answer])
    approver = Approver(ApprovalDecision.edit(arguments={"to": "b", "body": "hi"}))
    agent = ToolCallingAgent(list(make_tools(sent)), model, approve="tools", approver=approver)
    agent.restore_memory(steps_from_data(keeper.memory))
    assert agent.resume(keeper.request.model_output) == "mailed"
    assert sent == [("b", "hi")], "the held call ran once, edited"
    assert len(model.calls) == 1, "called for step 2 only"
    assert approver.requests[0].thought == "Mail the boss."
    assert "sent to b" in texts(model.calls[0])


def test_resume_refuses_a_memory_that_is_not_at_the_given_step():
    keeper = held_code_run("local")
    agent, model, _ = fresh_code_agent("local", [], ApprovalDecision.run(), keeper)
    with pytest.raises(AgentConfigError, match="given the output of step 3, but memory is at"):
        agent.resume(keeper.request.model_output, step_number=3)
    assert model.calls == []
