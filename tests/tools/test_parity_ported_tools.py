"""smolagents tool scripts from its tutorials (tools, structured outputs, sharing agents), with
`from smolagents import` changed to `from agents import` / `from tools import` and nothing
else; each asserts what smolagents 1.26 gives."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from agents import CodeAgent, ScriptedModel
from agents.persistence.serialization import FORMAT
from tools import Tool, tool
from tools.hub import TrustRemoteCodeError


def code(*lines: str) -> str:
    return "Thought: next.\n<code>\n" + "\n".join(lines) + "\n</code>"


@tool
def get_weather(city: str) -> str:
    """Gives the weather in a city.

    Args:
        city: The city.
    """
    return f"Sunny in {city}"


class WeatherReportTool(Tool):
    name = "weather_report"
    description = "Reports the weather of a city as structured data."
    inputs = {"city": {"type": "string", "description": "The city to report on."}}
    output_type = "object"
    output_schema = {
        "type": "object",
        "properties": {
            "temperature_c": {"type": "number", "description": "Temperature in Celsius."},
            "conditions": {"type": "string"},
        },
        "required": ["temperature_c", "conditions"],
    }

    def forward(self, city: str) -> dict:
        return {"temperature_c": 21.5, "conditions": f"clear over {city}"}


class MedianTool(Tool):
    name = "median"
    description = "The median of some numbers."
    inputs = {"numbers": {"type": "array", "description": "The numbers."}}
    output_type = "number"

    def forward(self, numbers: list) -> float:
        import numpy as np

        return float(np.median(numbers))


# -- output_schema in the CodeAgent system prompt -------------------------------------------


def test_output_schema_is_shown_in_the_code_agent_system_prompt():
    agent = CodeAgent(tools=[WeatherReportTool()], model=ScriptedModel([]))
    prompt = agent.system_prompt
    assert "def weather_report(city: str) -> dict:" in prompt
    assert '"temperature_c": {' in prompt and '"required": [' in prompt
    assert "structured output" in prompt
    # a tool without a schema is unchanged
    assert "def weather_report" not in CodeAgent(tools=[], model=ScriptedModel([])).system_prompt
    assert "-> dict" not in get_weather.to_code_prompt()


def test_structured_output_is_read_by_field():
    model = ScriptedModel([code("report = weather_report(city='Oslo')", "final_answer(report['conditions'])")])  # fmt: skip
    agent = CodeAgent(tools=[WeatherReportTool()], model=model, executor_type="local")
    assert agent.run("What are the conditions in Oslo?") == "clear over Oslo"


# -- Tool.to_dict round trip ------------------------------------------------------------------


def test_tool_to_dict_carries_code_and_requirements_and_round_trips():
    tool_dict = get_weather.to_dict()
    assert tool_dict["name"] == "get_weather" and tool_dict["requirements"] == []
    same = Tool.from_code(tool_dict["code"])
    assert same.name == "get_weather" and same(city="Rome") == "Sunny in Rome"
    assert same.inputs == get_weather.inputs and same.output_type == "string"

    median_dict = MedianTool().to_dict()
    assert median_dict["requirements"] == ["numpy"]
    loaded = Tool.from_dict(median_dict)
    assert loaded(numbers=[3, 1, 2]) == 2.0

    report = WeatherReportTool().to_dict()
    assert report["output_schema"]["required"] == ["temperature_c", "conditions"]
    assert Tool.from_code(report["code"]).output_schema == WeatherReportTool.output_schema
    json.dumps([tool_dict, median_dict, report])


# -- agent.to_dict / from_dict / save / from_folder ------------------------------------------


def weather_agent() -> CodeAgent:
    model = ScriptedModel([code("final_answer(get_weather(city='Rome'))")])
    return CodeAgent(tools=[get_weather, MedianTool()], model=model, executor_type="local")


def test_agent_to_dict_lists_tool_dicts_and_from_dict_loads_them(caplog):
    agent_dict = weather_agent().to_dict()
    tools = agent_dict["tools"]
    assert [t["name"] for t in tools] == ["get_weather", "median", "final_answer"]
    assert all({"name", "code", "requirements"} <= set(t) for t in tools)
    json.dumps(agent_dict)

    with caplog.at_level(logging.WARNING):
        loaded = CodeAgent.from_dict(agent_dict, model=weather_agent().model)
    assert "get_weather, median" in caplog.text
    assert set(loaded.tools) == {"get_weather", "median", "final_answer"}
    assert loaded.run("Weather in Rome?") == "Sunny in Rome"


def test_from_dict_still_reads_the_older_shape():
    agent_dict = weather_agent().to_dict()
    saved = [t for t in agent_dict["tools"] if t["name"] != "final_answer"]
    older = {
        **agent_dict,
        "format": FORMAT,
        "tools": [t["name"] for t in saved],
        "tool_code": {t["name"]: t["code"] for t in saved},
    }
    loaded = CodeAgent.from_dict(older, trust_remote_code=True)
    assert loaded.tools["median"](numbers=[1, 5, 9]) == 5.0


def test_a_folder_the_user_saved_loads_without_the_flag(tmp_path: Path, caplog):
    weather_agent().save(str(tmp_path / "my_agent"))
    with caplog.at_level(logging.WARNING):
        agent = CodeAgent.from_folder(tmp_path / "my_agent", executor_type="local")
    assert "get_weather" in caplog.text and "median" in caplog.text
    agent.model = ScriptedModel([code("final_answer(median(numbers=[4, 8, 6]))")])
    assert agent.run("Median of 4, 8 and 6?") == 6.0

    caplog.clear()
    with caplog.at_level(logging.WARNING):
        CodeAgent.from_folder(tmp_path / "my_agent", trust_remote_code=True)
    assert "runs the Python code" not in caplog.text  # the caller said it knows


def test_hub_downloads_still_require_trust():
    with pytest.raises(TrustRemoteCodeError, match="trust_remote_code=True"):
        CodeAgent.from_hub("someone/agent")
    with pytest.raises(TrustRemoteCodeError):
        Tool.from_hub("someone/tool")
