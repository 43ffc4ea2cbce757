"""`GradioUI(agent)`: one agent definition, but every visitor gets their own copy."""

from __future__ import annotations

from agents import CodeAgent, ScriptedModel
from smolui.factory import as_factory


def test_each_conversation_gets_its_own_agent():
    agent = CodeAgent(tools=[], model=ScriptedModel([]), executor_type="local", verbosity_level=0)
    factory = as_factory(agent)
    first, second, third = factory(), factory(), factory()
    assert first is agent
    assert second is not agent and third is not second
    assert second.memory is not agent.memory and second.executor is not agent.executor
    factory.release(second)  # a copy is closed, not handed back
    assert factory() is not agent
