"""Who must act: model mistakes go back to the model, provider failures end the run."""

from __future__ import annotations

import pytest

from agents import (
    ActionStep,
    AgentConfigError,
    AgentGenerationError,
    CodeAgent,
    ScriptedModel,
    ScriptedReply,
    ToolCallingAgent,
)
from agents.errors import ProviderServerError
from tools import tool


@tool
def divide(a: float, b: float) -> float:
    """Divides a by b.

    Args:
        a: The dividend.
        b: The divisor.
    """
    return a / b


def code(body: str) -> str:
    return f"Thought: go.\n<code>\n{body}\n</code>"


def test_code_error_becomes_an_observation_and_the_loop_goes_on():
    model = ScriptedModel([code("print('before')\n1 / 0"), code("final_answer('recovered')")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    assert agent.run("x") == "recovered"
    failed = agent.memory.steps[1]
    assert "ZeroDivisionError" in failed.error.message
    assert "before" in failed.observations
    assert "ZeroDivisionError" in str(model.calls[1])


def test_unparsable_output_goes_back_to_the_model():
    model = ScriptedModel(["I think the answer is obvious.", code("final_answer(1)")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    assert agent.run("x") == 1
    assert "no code block" in agent.memory.steps[1].error.message


def test_forbidden_import_is_a_model_mistake():
    model = ScriptedModel([code("import os\nos.getcwd()"), code("final_answer(2)")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    assert agent.run("x") == 2
    assert "not allowed" in agent.memory.steps[1].error.message


def test_provider_failure_ends_the_run_with_generation_error():
    model = ScriptedModel([ScriptedReply(error=ProviderServerError("server said 503"))])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    with pytest.raises(AgentGenerationError, match="503"):
        agent.run("x")
    assert isinstance(agent.memory.steps[-1], ActionStep)
    assert agent.memory.steps[-1].error is not None


def test_transient_provider_errors_are_retried():
    model = ScriptedModel(
        [ScriptedReply(error=ProviderServerError("flaky")), code("final_answer('ok')")],
        max_retries=2,
        retry_delay=0.01,
    )
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    assert agent.run("x") == "ok"


def test_agent_is_usable_after_a_generation_error():
    model = ScriptedModel(
        [ScriptedReply(error=ProviderServerError("down")), code("final_answer(5)")]
    )
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    with pytest.raises(AgentGenerationError):
        agent.run("first")
    assert agent.run("second", reset=False) == 5


def test_tool_errors_reach_the_model_for_tool_calling_agent():
    model = ScriptedModel(
        [
            ScriptedReply(tool_calls=[("divide", {"a": 1, "b": 0})]),
            ScriptedReply(tool_calls=[("divide", {"a": "one"})]),
            ScriptedReply(tool_calls=[("nope", {})]),
            ScriptedReply(tool_calls=[("divide", '{"a": 9, "b": 3}')]),
            ScriptedReply(tool_calls=[("final_answer", {"answer": "3.0"})]),
        ]
    )
    agent = ToolCallingAgent(tools=[divide], model=model, verbosity_level=-1)
    assert agent.run("divide") == "3.0"
    errors = [s.error.message for s in agent.memory.steps[1:4]]
    assert "ZeroDivisionError" in errors[0]
    assert "should be number" in errors[1] or "needs argument" in errors[1]
    assert "Unknown tool 'nope'" in errors[2]
    assert agent.memory.steps[4].observations == "3.0"


def test_state_variables_are_resolved_by_name():
    from PIL import Image

    @tool
    def make_image(color: str) -> Image.Image:
        """Makes an image.

        Args:
            color: Its color.
        """
        return Image.new("RGB", (3, 2), color)

    @tool
    def width(image: Image.Image) -> int:
        """Width of an image.

        Args:
            image: The image.
        """
        return image.size[0]

    model = ScriptedModel(
        [
            ScriptedReply(tool_calls=[("make_image", {"color": "blue"})]),
            ScriptedReply(tool_calls=[("width", {"image": "image_1"})]),
            ScriptedReply(tool_calls=[("final_answer", {"answer": "image_1"})]),
        ]
    )
    agent = ToolCallingAgent(tools=[make_image, width], model=model, verbosity_level=-1)
    answer = agent.run("draw")
    assert answer.size == (3, 2)
    assert agent.memory.steps[2].observations == "3"
    assert agent.memory.steps[1].observations_images


def test_configuration_mistakes_raise_at_construction():
    model = ScriptedModel([])
    with pytest.raises(AgentConfigError, match="not a Tool"):
        CodeAgent(tools=[lambda x: x], model=model)
    with pytest.raises(AgentConfigError, match="generate"):
        CodeAgent(tools=[], model="gpt-4")
    with pytest.raises(AgentConfigError, match="unique"):
        CodeAgent(tools=[divide, divide.__class__()], model=model)
    with pytest.raises(AgentConfigError, match="name and a description"):
        CodeAgent(tools=[], model=model, managed_agents=[CodeAgent(tools=[], model=model)])
    with pytest.raises(AgentConfigError, match="executor_type"):
        CodeAgent(tools=[], model=model, executor_type="docker-in-the-cloud")


def test_closing_the_stream_records_an_interrupted_step():
    model = ScriptedModel([code("a = 1"), code("final_answer('again')")], chunk_size=3)
    agent = CodeAgent(tools=[], model=model, stream_outputs=True, verbosity_level=-1)
    events = agent.run("x", stream=True)
    next(events)  # the first token delta
    events.close()
    last = agent.memory.steps[-1]
    assert isinstance(last, ActionStep) and "stopped" in last.error.message
    assert agent.run("y", reset=False) == "again"
    assert "stopped" in str(model.calls[-1])  # the model is told the last run was stopped


def test_single_step_runs_one_step():
    model = ScriptedModel([code("'partial'"), code("final_answer(1)")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    assert agent.run("x", single_step=True) == "partial"
    assert model.remaining == 1


def test_structured_outputs_use_response_format():
    model = ScriptedModel(['{"thought": "easy", "code": "final_answer(21 * 2)"}'])
    agent = CodeAgent(
        tools=[], model=model, use_structured_outputs_internally=True, verbosity_level=-1
    )
    assert agent.run("x") == 42
    assert model.call_kwargs[0]["response_format"]["json_schema"]["name"] == "ThoughtAndCode"


def test_replay_and_visualize(capsys):
    model = ScriptedModel([code("final_answer(divide(a=6, b=3))")])
    agent = CodeAgent(tools=[divide], model=model, verbosity_level=-1)
    agent.run("x")
    agent.replay()
    tree = agent.visualize()
    out = capsys.readouterr().out
    assert "final_answer(divide(a=6, b=3))" in out
    assert "divide(a: number, b: number) -> number" in tree


def test_write_memory_to_messages_summary_mode_drops_model_output():
    model = ScriptedModel([code("final_answer(3)")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    agent.run("x")
    full = agent.write_memory_to_messages()
    summary = agent.write_memory_to_messages(summary_mode=True)
    assert full[0].role == "system" and summary[0].role == "user"
    assert any("Thought: go." in m.text for m in full)
    assert not any("Thought: go." in m.text for m in summary)
