"""Agent memory as data: every step kind survives JSON, and a fresh agent continues from it."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from agents.errors import AgentExecutionError, AgentParsingError
from agents.loop.code_agent import CodeAgent
from agents.memory.io import (
    FolderImageStore,
    MemoryFormatError,
    steps_from_data,
    steps_to_data,
)
from agents.memory.steps import (
    ActionStep,
    FinalAnswerStep,
    PlanningStep,
    TaskStep,
    Timing,
    ToolCall,
)
from agents.models.messages import ChatMessage, TokenUsage, content_text
from agents.models.scripted import ScriptedModel
from agents.observability.console import LogLevel


def agent(replies: list) -> CodeAgent:
    model = ScriptedModel(replies)
    return CodeAgent([], model, executor_type="local", verbosity_level=LogLevel.OFF)


def test_every_step_kind_round_trips_through_json(tmp_path):
    images = FolderImageStore(tmp_path / "images")
    picture = Image.new("RGB", (4, 3), (200, 10, 10))
    steps = [
        TaskStep("plot it", task_images=[picture]),
        PlanningStep(
            [], ChatMessage("assistant", "1. plot"), "1. plot", Timing(1.0, 2.0), TokenUsage(5, 6)
        ),  # fmt: skip
        ActionStep(
            step_number=1,
            timing=Timing(2.0, 3.5),
            tool_calls=[ToolCall("python", {"a": 1}, "c1")],
            error=AgentExecutionError("boom", logs="printed", state_lost=True),
            model_output="Thought",
            code_action="x = 1",
            observations="out",
            observations_images=[picture],
            action_output={"set"},
            token_usage=TokenUsage(7, 8),
        ),  # fmt: skip
        ActionStep(
            step_number=2,
            error=AgentParsingError("no code"),
            action_output=42,
            is_final_answer=True,
        ),  # fmt: skip
        FinalAnswerStep(output=42),
    ]
    data = json.loads(json.dumps(steps_to_data(steps, images)))
    back = steps_from_data(data, images)
    assert [type(s) for s in back] == [type(s) for s in steps]
    assert back[0].task == "plot it" and back[0].task_images[0].size == (4, 3)
    assert back[1].plan == "1. plot" and back[1].token_usage == TokenUsage(5, 6)
    first = back[2]
    assert isinstance(first.error, AgentExecutionError) and first.error.state_lost
    assert first.error.logs == "printed" and first.error.message == "boom"
    assert first.tool_calls[0].arguments == {"a": 1} and first.timing.end_time == 3.5
    assert first.action_output == "{'set'}"  # not JSON: kept as what the model saw
    assert first.observations_images[0].getpixel((0, 0)) == (200, 10, 10)
    assert isinstance(back[3].error, AgentParsingError) and back[3].is_final_answer
    assert back[4].output == 42
    # The same image is stored once.
    assert len(list((tmp_path / "images").iterdir())) == 1
    assert [m.dict() for s in back[:4] for m in s.to_messages()] == [
        m.dict() for s in steps[:4] for m in s.to_messages()
    ]


def test_a_fresh_agent_continues_from_stored_memory():
    first = agent(["<code>\nfavourite = 'teal'\nfinal_answer('Noted teal.')\n</code>"])
    first.run("My favourite colour is teal.")
    data = json.loads(json.dumps(steps_to_data(first.memory.steps)))

    second = agent(["<code>\nfinal_answer('You said teal')\n</code>"])
    second.memory.steps = steps_from_data(data)
    assert second.run("Which colour did I name?", reset=False) == "You said teal"
    seen = "\n".join(content_text(m.get("content")) for m in second.model.calls[-1])
    assert "My favourite colour is teal." in seen and "Noted teal." in seen
    assert "Which colour did I name?" in seen


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"steps": []},
        {"version": 1, "steps": [{"type": "Pickle"}]},
        {"version": 1, "steps": [{"type": "ActionStep"}]},
    ],  # fmt: skip
)
def test_unreadable_memory_is_a_clear_error(data):
    with pytest.raises(MemoryFormatError):
        steps_from_data(data)


def test_image_references_cannot_leave_the_folder(tmp_path):
    with pytest.raises(MemoryFormatError):
        FolderImageStore(tmp_path).get("../secret.png")
