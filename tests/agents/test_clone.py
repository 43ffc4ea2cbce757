"""`agent.clone()`: one agent definition, many independent conversations."""

from __future__ import annotations

import pytest

from agents import AgentConfigError, CodeAgent, ManagedAgent, ScriptedModel, ToolCallingAgent
from agents.executors.local import LocalPythonExecutor
from tools import tool


@tool
def shout(text: str) -> str:
    """Upper-cases text.

    Args:
        text: The text.
    """
    return text.upper()


def test_clone_shares_tools_and_model_but_not_memory_or_state():
    model = ScriptedModel(
        ["<code>\nsecret = 'mine'\nfinal_answer(shout(text=secret))\n</code>",
         "<code>\nfinal_answer(repr(globals().get('secret')))\n</code>"]
    )  # fmt: skip
    agent = CodeAgent(tools=[shout], model=model, executor_type="local", max_steps=3,
                      verbosity_level=0)  # fmt: skip
    twin = agent.clone()
    assert twin is not agent and type(twin) is CodeAgent
    assert twin.model is model and twin.tools["shout"] is agent.tools["shout"]
    assert twin.max_steps == 3 and twin.executor is not agent.executor
    assert agent.run("task-alpha") == "MINE"
    assert twin.run("task-beta", reset=False) == "None"  # the twin never saw `secret`
    assert len(twin.memory.steps) == 2 and "task-alpha" not in str(twin.write_memory_to_messages())


def test_clone_gives_managed_agents_their_own_memory():
    helper = ToolCallingAgent(tools=[], model=ScriptedModel([]), name="helper",
                              description="Helps.", verbosity_level=0)  # fmt: skip
    wrapped = ManagedAgent(ToolCallingAgent(tools=[], model=ScriptedModel([]), verbosity_level=0),
                           name="other", description="Also helps.")  # fmt: skip
    boss = CodeAgent(tools=[], model=ScriptedModel([]), managed_agents=[helper, wrapped],
                     executor_type="local", verbosity_level=0)  # fmt: skip
    copy = boss.clone()
    assert copy.managed_agents["helper"].agent is not helper
    assert copy.managed_agents["other"].agent is not wrapped.agent
    assert copy.managed_agents["helper"].agent.description == "Helps."


def test_an_agent_with_a_ready_executor_cannot_be_cloned():
    agent = CodeAgent(tools=[], model=ScriptedModel([]), executor=LocalPythonExecutor(),
                      verbosity_level=0)  # fmt: skip
    with pytest.raises(AgentConfigError, match="ready executor"):
        agent.clone()
