"""Checks shared by the backend tests."""

from __future__ import annotations

from typing import Any

from agents.loop.code_agent import CodeAgent
from agents.memory.steps import ActionStep

TASK = "What is 6 times 7? Answer with final_answer."


def run_one_code_agent_step(model: Any) -> tuple[CodeAgent, Any]:
    """Run a real CodeAgent for one step on `model`; return the agent and its full result."""
    agent = CodeAgent(tools=[], model=model)
    result = agent.run(TASK, max_steps=1, return_full_result=True)
    return agent, result


def assert_agent_step_ran(agent: CodeAgent, result: Any) -> None:
    """The pipeline worked (prompt in, answer out, usage counted), whatever the model said."""
    assert result.state in ("success", "max_steps_error"), result.error
    step = next(s for s in agent.memory.steps if isinstance(s, ActionStep))
    prompt = step.model_input_messages
    assert prompt[0].role == "system" and "final_answer" in prompt[0].text
    assert TASK in prompt[-1].text
    assert isinstance(step.model_output, str) and step.model_output.strip()
    # The code stop sequences were honoured: the model never wrote the observation itself.
    assert "Observation:" not in step.model_output
    assert step.token_usage.input_tokens > 200  # the system prompt alone is that long
    assert step.token_usage.output_tokens > 0
    assert result.token_usage.total_tokens >= step.token_usage.total_tokens
