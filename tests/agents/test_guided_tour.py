"""The smolagents guided tour's offline examples, with only the imports changed."""

from __future__ import annotations

import pytest

from agents import (
    ActionStep,
    CodeAgent,
    FinalAnswerStep,
    ManagedAgent,
    PlanningStep,
    ScriptedModel,
    ScriptedReply,
    ToolCall,
    ToolCallingAgent,
)
from tools import Tool, tool

HUB = {"text-classification": "distilbert/sst2", "text-to-video": "ByteDance/AnimateDiff-Lightning"}


@tool
def model_download_tool(task: str) -> str:
    """
    This is a tool that returns the most downloaded model of a given task on the Hugging Face Hub.
    It returns the name of the checkpoint.

    Args:
        task: The task for which to get the download count.
    """
    return HUB[task]


class ModelDownloadTool(Tool):
    name = "model_download_tool"
    description = "Returns the most downloaded model of a given task on the Hub."
    inputs = {
        "task": {"type": "string", "description": "The task for which to get the download count."}
    }
    output_type = "string"

    def forward(self, task: str) -> str:
        return HUB[task]


def code(*lines: str) -> str:
    return "Thought: next step.\n<code>\n" + "\n".join(lines) + "\n</code>"


@pytest.mark.parametrize("download_tool", [model_download_tool, ModelDownloadTool()])
def test_code_agent_with_a_tool(download_tool):
    model = ScriptedModel(
        [
            code('model_name = model_download_tool(task="text-to-video")', "print(model_name)"),
            code("final_answer(model_name)"),
        ]
    )
    agent = CodeAgent(tools=[download_tool], model=model, verbosity_level=-1)
    answer = agent.run(
        "Can you give me the name of the model that has the most downloads in the "
        "'text-to-video' task on the Hugging Face Hub?"
    )
    assert answer == "ByteDance/AnimateDiff-Lightning"
    first = agent.memory.steps[1]
    assert isinstance(first, ActionStep)
    assert "ByteDance/AnimateDiff-Lightning" in first.observations
    assert first.tool_calls[0].name == "python_interpreter"
    assert "model_download_tool" in model.calls[0][0]["content"][0]["text"]


def test_tool_calling_agent():
    model = ScriptedModel(
        [
            ScriptedReply(tool_calls=[("model_download_tool", {"task": "text-classification"})]),
            ScriptedReply(tool_calls=[("final_answer", {"answer": "distilbert/sst2"})]),
        ]
    )
    agent = ToolCallingAgent(tools=[model_download_tool], model=model, verbosity_level=-1)
    assert agent.run("Most downloaded text-classification model?") == "distilbert/sst2"
    assert model.call_kwargs[0]["tools"][0]["function"]["name"] == "model_download_tool"


def test_multi_turn_keeps_memory_and_variables():
    model = ScriptedModel(
        [
            code("secret = 6 * 7", "final_answer(secret)"),
            code("final_answer(secret + 1)"),
        ]
    )
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    assert agent.run("Compute 6 * 7.") == 42
    assert agent.run("Add one to the previous result.", reset=False) == 43
    second_prompt = "\n".join(str(m["content"]) for m in model.calls[1])
    assert "Compute 6 * 7." in second_prompt
    assert "Add one to the previous result." in second_prompt


def test_reset_forgets_memory():
    model = ScriptedModel([code("final_answer(1)"), code("final_answer(2)")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    agent.run("first task")
    agent.run("second task")
    assert "first task" not in str(model.calls[1])


def test_stream_yields_steps_then_final_answer():
    model = ScriptedModel([code("x = 2"), code("final_answer(x ** 10)")])
    agent = CodeAgent(tools=[], model=model, stream_outputs=True, verbosity_level=-1)
    events = list(agent.run("two to the tenth", stream=True))
    kinds = [type(e).__name__ for e in events]
    assert kinds[-1] == "FinalAnswerStep" and events[-1].output == 1024
    assert kinds.count("ActionStep") == 2
    assert "ChatMessageStreamDelta" in kinds
    streamed = "".join(
        e.content or "" for e in events if type(e).__name__ == "ChatMessageStreamDelta"
    )
    assert "x ** 10" in streamed and "</code>" not in streamed
    assert any(isinstance(e, ToolCall) for e in events)


def test_planning_interval():
    model = ScriptedModel(
        [
            "1. compute\n2. answer",
            code("y = 3"),
            code("z = 4"),
            "Updated plan: answer now",
            code("final_answer(y + z)"),
        ]
    )
    agent = CodeAgent(tools=[], model=model, planning_interval=2, verbosity_level=-1)
    events = list(agent.run("add", stream=True))
    plans = [e for e in events if isinstance(e, PlanningStep)]
    assert [p.plan for p in plans] == ["1. compute\n2. answer", "Updated plan: answer now"]
    assert events[-1].output == 7
    assert "1. compute" in str(model.calls[1])
    assert "z = 4" in str(model.calls[3])  # the update sees the steps so far


@pytest.mark.parametrize("wrapped", [False, True])
def test_managed_agents(wrapped):
    web_model = ScriptedModel([code('final_answer("Clem Delangue")')])
    if wrapped:
        web_agent = CodeAgent(tools=[], model=web_model, verbosity_level=-1)
        managed = ManagedAgent(
            agent=web_agent,
            name="web_search",
            description="Runs web searches for you. Give it your query as an argument.",
        )
    else:
        managed = web_agent = CodeAgent(
            tools=[],
            model=web_model,
            name="web_search",
            verbosity_level=-1,
            description="Runs web searches for you. Give it your query as an argument.",
        )
    manager_model = ScriptedModel(
        [
            code('report = web_search(task="Who is the CEO of Hugging Face?")', "print(report)"),
            code('final_answer("Clem Delangue")'),
        ]
    )
    manager = CodeAgent(tools=[], model=manager_model, managed_agents=[managed], verbosity_level=-1)
    events = list(manager.run("Who is the CEO of Hugging Face?", stream=True))
    assert events[-1].output == "Clem Delangue"
    assert "Clem Delangue" in manager.memory.steps[1].observations
    assert "Who is the CEO of Hugging Face?" in str(web_model.calls[0])
    nested = [e for e in events if type(e).__name__ == "SubAgentEvent"]
    assert nested and nested[0].agent_name == "web_search"
    assert "web_search" in manager_model.calls[0][0]["content"][0]["text"]


def test_step_callbacks_get_each_step():
    seen = []
    model = ScriptedModel([code("a = 1"), code("final_answer(a)")])
    agent = CodeAgent(
        tools=[],
        model=model,
        verbosity_level=-1,
        step_callbacks=[lambda step, agent: seen.append((step.step_number, agent.name))],
    )
    agent.run("go")
    assert seen == [(1, None), (2, None)]


def test_final_answer_check_failure_goes_back_to_the_model():
    def is_positive(answer, memory):
        return answer > 0

    model = ScriptedModel([code("final_answer(-1)"), code("final_answer(5)")])
    agent = CodeAgent(tools=[], model=model, final_answer_checks=[is_positive], verbosity_level=-1)
    assert agent.run("a positive number") == 5
    assert "is_positive" in agent.memory.steps[1].error.message
    assert "is_positive" in str(model.calls[1])


def test_max_steps_then_answer_from_memory():
    model = ScriptedModel([code("a = 1"), code("b = 2"), "The answer is 3."])
    agent = CodeAgent(tools=[], model=model, max_steps=2, verbosity_level=-1)
    result = agent.run("never finishes", return_full_result=True)
    assert result.output == "The answer is 3."
    assert result.state == "max_steps_error"
    last = agent.memory.steps[-1]
    assert type(last.error).__name__ == "AgentMaxStepsError"
    assert "never finishes" in str(model.calls[-1][-1])


def test_interrupt_stops_at_next_step():
    model = ScriptedModel([code("a = 1"), code("b = 2"), code("final_answer(3)")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    events = agent.run("go", stream=True)
    for event in events:
        if isinstance(event, ActionStep):
            agent.interrupt()
            break
    with pytest.raises(Exception, match="interrupted"):
        next(events)
    assert model.remaining == 2


def test_images_and_additional_args():
    from PIL import Image

    image = Image.new("RGB", (4, 4), "red")
    model = ScriptedModel([code("final_answer(len(words) + photo.size[0])")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    answer = agent.run(
        "count", images=[image], additional_args={"words": ["a", "b"], "photo": image}
    )
    assert answer == 6
    task_blocks = model.calls[0][1]["content"]
    assert any(b["type"] == "image_url" for b in task_blocks)
    assert "words" in str(task_blocks)


def test_return_full_result_reports_tokens_and_timing():
    model = ScriptedModel([code("final_answer('done')")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    result = agent.run("x", return_full_result=True)
    assert result.output == "done" and result.state == "success"
    assert result.token_usage.input_tokens > 0 and result.token_usage.output_tokens > 0
    assert result.timing.duration >= 0


def test_stream_events_end_with_final_answer_for_tool_calling():
    model = ScriptedModel(['{"name": "final_answer", "arguments": {"answer": "ok"}}'])
    agent = ToolCallingAgent(tools=[], model=model, verbosity_level=-1)
    events = list(agent.run("x", stream=True))
    assert isinstance(events[-1], FinalAnswerStep) and events[-1].output == "ok"
