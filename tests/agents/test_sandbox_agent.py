"""`CodeAgent` on the real sandbox: steps share a worker, failures reach the model, and a
replaced worker is announced to the model."""

from __future__ import annotations

import os
import sys

import pytest

from agents import CodeAgent, ScriptedModel
from agents.errors import AgentConfigError
from agents.executors.sandbox import SandboxExecutor
from tests.waiting import wait_for
from tools import tool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")


@tool
def host_pid() -> int:
    """Returns the process id of whoever runs the tool."""
    return os.getpid()


def code(body: str) -> str:
    return f"Thought: go.\n<code>\n{body}\n</code>"


def make_agent(
    replies: list[str], imports: list[str] | None = None, **executor_kwargs
) -> CodeAgent:
    return CodeAgent(
        tools=[host_pid],
        model=ScriptedModel(replies),
        additional_authorized_imports=imports,
        executor_type="sandbox",
        executor_kwargs={"timeout": 10, **executor_kwargs},
        verbosity_level=-1,
    )


def test_steps_and_turns_share_one_worker_and_tools_run_in_the_host():
    agent = make_agent(
        [
            code("total = 40\nprint(total)"),
            code("final_answer((total + 2, host_pid()))"),
            code("final_answer(total * 10)"),
        ]
    )
    try:
        assert isinstance(agent.executor, SandboxExecutor)
        assert agent.run("first") == (42, os.getpid())
        assert agent.run("second turn", reset=False) == 400
        assert "40" in agent.memory.steps[1].observations
    finally:
        agent.close()


def test_a_timeout_is_told_to_the_model_and_the_next_step_works():
    agent = make_agent(
        [
            code("kept = 1"),
            code("while True:\n    pass"),
            code("print(kept)"),
            code("final_answer('done')"),
        ],
        timeout=1.5,
    )
    try:
        assert agent.run("loop forever") == "done"
        model = agent.model
        told = str(model.calls[2])
        assert "timed out" in told and "variables" in told and "lost" in told
        assert "NameError" in str(model.calls[3])  # the variable really is gone
    finally:
        agent.close()


def test_an_escape_attempt_is_an_observation_and_the_run_goes_on():
    agent = make_agent(
        [
            code("import subprocess\nsubprocess.run(['id'])"),
            code("final_answer('still fine')"),
        ],
        imports=["*"],
    )
    try:
        assert agent.run("escape") == "still fine"
        assert "Operation not permitted" in agent.memory.steps[1].error.message
    finally:
        agent.close()


def test_warm_up_starts_the_worker_before_the_first_step():
    agent = make_agent([code("final_answer(1)")])
    try:
        assert not agent.executor.running
        agent.warm_up()
        wait_for(lambda: agent.executor.running, "the warm-up starts the worker")
        pid = agent.executor.worker_pid
        assert agent.run("one") == 1
        assert agent.executor.worker_pid == pid, "the run used the warmed-up worker"
    finally:
        agent.close()


def test_a_closed_executor_is_not_started_by_a_late_warm_up():
    executor = SandboxExecutor(timeout=10)
    executor.close()
    with pytest.raises(AgentConfigError, match="closed"):
        executor.start()
    assert not executor.running
