"""smolagents scripts from its tutorials (memory, inspecting runs, building good agents), with
`from smolagents import` changed to `from agents import` and nothing else; each asserts what
smolagents 1.26 gives. Also the host's checks on a DataFrame the sandbox sends as data.
"""

from __future__ import annotations

import io
import json
import sys

import pandas as pd
import pytest

from agents import (
    ActionStep,
    AgentLogger,
    ChatMessage,
    CodeAgent,
    FinalAnswerStep,
    LogLevel,
    MessageRole,
    PlanningStep,
    ScriptedModel,
    ScriptedReply,
    ToolCallingAgent,
)
from agents.executors.frames import frame_from_tree
from agents.executors.previews import TablePreview, table_tree
from tools import tool

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")


def code(*lines: str) -> str:
    return "Thought: next.\n<code>\n" + "\n".join(lines) + "\n</code>"


@tool
def get_weather(city: str) -> str:
    """Gives the weather in a city.

    Args:
        city: The city.
    """
    return f"Sunny in {city}"


# -- a DataFrame given to final_answer --------------------------------------------------


SALES = (
    "import pandas as pd",
    "df = pd.DataFrame({'month': ['Jan', 'Feb', 'Mar'], 'total': [10, 32, 21],",
    "                   'share': [0.16, 0.51, None],",
    "                   'day': pd.to_datetime(['2024-01-31', '2024-02-29', '2024-03-31'])})",
    "final_answer(df.set_index('month'))",
)


@linux_only
def test_a_dataframe_given_to_final_answer_comes_back_as_a_dataframe():
    model = ScriptedModel([code(*SALES)])
    agent = CodeAgent(tools=[], model=model, additional_authorized_imports=["pandas"])
    try:
        result = agent.run("Make a table of the sales per month.")
    finally:
        agent.close()
    expected = pd.DataFrame(
        {
            "total": [10, 32, 21],
            "share": [0.16, 0.51, None],
            "day": pd.to_datetime(["2024-01-31", "2024-02-29", "2024-03-31"]),
        },
        index=pd.Index(["Jan", "Feb", "Mar"], name="month"),
    )
    assert isinstance(result, pd.DataFrame)
    pd.testing.assert_frame_equal(result, expected, check_index_type=False, check_dtype=False)
    assert [str(t) for t in result.dtypes[:2]] == ["int64", "float64"]
    assert str(result["day"].dtype).startswith("datetime64")
    assert result.loc["Feb", "total"] == 32


@linux_only
def test_a_series_answer_is_a_series_and_a_step_value_stays_a_preview():
    model = ScriptedModel(
        [
            code("import pandas as pd", "s = pd.Series([1.5, 2.5], name='price')", "s"),
            code("final_answer(s * 2)"),
        ]
    )
    agent = CodeAgent(tools=[], model=model, additional_authorized_imports=["pandas"])
    try:
        result = agent.run("Double the prices.")
    finally:
        agent.close()
    assert isinstance(result, pd.Series) and result.name == "price"
    assert result.tolist() == [3.0, 5.0]
    # what the model read at the first step: the compact preview, not the frame
    first = agent.memory.steps[1]
    assert isinstance(first.action_output, TablePreview)
    assert "pandas Series 'price'" in first.observations


@linux_only
def test_an_answer_over_the_size_cap_stays_a_preview():
    model = ScriptedModel(
        [code("import pandas as pd", "final_answer(pd.DataFrame({'n': range(5000)}))")]
    )
    agent = CodeAgent(
        tools=[],
        model=model,
        additional_authorized_imports=["pandas"],
        executor_kwargs={"max_output_chars": 10_000},
    )
    try:
        result = agent.run("Count to 5000.")
    finally:
        agent.close()
    assert isinstance(result, TablePreview) and result.shape == (5000, 1)
    assert "5000 rows" in result


def sent_tree(frame: object) -> dict:
    """What the worker sends for a final answer, through JSON as on the pipe."""
    return json.loads(json.dumps(table_tree(frame, data_limit=1_000_000)))


def test_the_host_rebuilds_only_plain_data_it_checked():
    tree = sent_tree(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}))
    pd.testing.assert_frame_equal(
        frame_from_tree(tree, 1_000_000), pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    )
    assert frame_from_tree(tree, 10) is None  # over the host's own cap
    broken = [
        {**tree["data"], "records": [[1, "x"], [2]]},  # a short row
        {**tree["data"], "records": [[{"$t": "pickle", "v": "gASV"}, "x"]]},  # not a scalar
        {**tree["data"], "dtypes": ["int64", "object;import os"]},  # not a dtype name
        {**tree["data"], "index": [0]},  # index and rows differ
        "records",
    ]
    for data in broken:
        assert frame_from_tree({**tree, "data": data}, 1_000_000) is None, data
    assert frame_from_tree({**tree, "data": None}, 1_000_000) is None


def test_frames_with_a_multiindex_send_no_data():
    frame = pd.DataFrame({"v": [1, 2]}, index=pd.MultiIndex.from_tuples([("a", 1), ("b", 2)]))
    assert "data" not in table_tree(frame, data_limit=1_000_000)
    assert "data" not in table_tree(pd.DataFrame({"v": [1]}))  # not an answer: no data


# -- memory: get_full_steps, get_succinct_steps, return_full_code -----------------------


def test_get_full_steps_holds_the_messages_the_model_saw():
    model = ScriptedModel([code("x = 6 * 7", "print(x)"), code("final_answer(x)")])
    agent = CodeAgent(tools=[get_weather], model=model, verbosity_level=0)
    agent.run("What is 6 times 7?")

    full_steps = agent.memory.get_full_steps()
    action = [s for s in full_steps if "model_input_messages" in s]
    assert len(action) == 2
    first_messages = action[0]["model_input_messages"]
    assert first_messages[0]["role"] == MessageRole.SYSTEM
    assert "get_weather" in first_messages[0]["content"][0]["text"]
    assert "What is 6 times 7?" in first_messages[-1]["content"][0]["text"]
    assert len(action[1]["model_input_messages"]) > len(first_messages)
    json.dumps(full_steps)  # plain data, as smolagents gives it

    succinct = agent.memory.get_succinct_steps()
    assert all("model_input_messages" not in s for s in succinct)
    assert [s.get("code_action") for s in succinct] == [s.get("code_action") for s in full_steps]
    assert agent.memory.return_full_code() == "x = 6 * 7\nprint(x)\n\nfinal_answer(x)"


def test_planning_steps_carry_their_messages_too():
    model = ScriptedModel(["1. Answer.", code("final_answer(1)")])
    agent = CodeAgent(tools=[], model=model, planning_interval=5, verbosity_level=0)
    agent.run("Say 1.")
    assert isinstance(agent.memory.steps[1], PlanningStep)
    plan = agent.memory.get_full_steps()[1]
    assert plan["plan"].startswith("1. Answer.")
    assert plan["model_input_messages"][0]["role"] in ("system", "user")
    assert plan["model_output_message"]["role"] == "assistant"


# -- callbacks for FinalAnswerStep ----------------------------------------------------------


def test_final_answer_step_callbacks_in_the_dict_form_run():
    answers, actions, everything = [], [], []

    def on_final_answer(step: FinalAnswerStep, agent: CodeAgent) -> None:
        answers.append((step.output, agent.name))

    def on_action(step: ActionStep, agent=None) -> None:
        actions.append(step.step_number)

    model = ScriptedModel([code("a = 20"), code("final_answer(a + 1)")])
    agent = CodeAgent(
        tools=[],
        model=model,
        name="counter",
        step_callbacks={FinalAnswerStep: [on_final_answer], ActionStep: on_action},
        verbosity_level=0,
    )
    assert agent.run("Count to 21.") == 21
    assert answers == [(21, "counter")] and actions == [1, 2]

    listed = ToolCallingAgent(
        tools=[],
        model=ScriptedModel([ScriptedReply(tool_calls=[("final_answer", {"answer": "3"})])]),
        step_callbacks=[everything.append],
        verbosity_level=0,
    )
    assert listed.run("Answer.") == "3"
    # the list form is for memory steps, as in smolagents: the answer is not one
    assert everything and not any(isinstance(s, FinalAnswerStep) for s in everything)


# -- AgentLogger and ChatMessage ------------------------------------------------------------


class Console:
    """Stands in for a rich Console: collects what is printed."""

    def __init__(self) -> None:
        self.printed: list[str] = []

    def print(self, text: str) -> None:
        self.printed.append(str(text))


def test_agent_logger_methods_write_through_the_console():
    console = Console()
    logger = AgentLogger(level=LogLevel.DEBUG, console=console)
    logger.log_rule("Step 1")
    logger.log_task("Find the weather.", subtitle="ScriptedModel", title="helper")
    logger.log_messages([{"role": "user", "content": "hi"}, ChatMessage("assistant", "hello")])
    agent = CodeAgent(tools=[get_weather], model=ScriptedModel([]), verbosity_level=-1)
    logger.visualize_agent_tree(agent)
    text = "\n".join(console.printed)
    assert "Step 1" in console.printed[0]
    assert "Find the weather." in console.printed[1] and "helper" in console.printed[1]
    assert json.loads(console.printed[2]) == {"role": "user", "content": "hi"}
    assert json.loads(console.printed[3])["content"] == "hello"
    assert "get_weather" in text and "CodeAgent" in text

    quiet = AgentLogger(level=LogLevel.INFO, stream=io.StringIO())
    quiet.log_messages([{"role": "user", "content": "hidden"}])  # DEBUG by default
    assert quiet.stream.getvalue() == ""


def test_chat_message_model_dump_json():
    message = ChatMessage(role="assistant", content=[{"type": "text", "text": "Paris"}])
    data = json.loads(message.model_dump_json())
    assert data["role"] == "assistant" and data["content"][0]["text"] == "Paris"
    assert ChatMessage.from_dict(data) == message
