"""The agent's lifecycle API: reset, undo of the last turn, warm-up, read grants, close."""

from __future__ import annotations

import sys

import pytest

from agents import CodeAgent, ScriptedModel, ScriptedReply, TaskStep, ToolCallingAgent
from agents.errors import AgentExecutionError
from tests.waiting import wait_for
from tools import tool


def code(snippet: str) -> str:
    return f"Thought: go.\n<code>\n{snippet}\n</code>"


@pytest.fixture(params=["local", "sandbox"])
def executor_type(request):
    if request.param == "sandbox" and not sys.platform.startswith("linux"):
        pytest.skip("Linux sandbox")
    return request.param


def code_agent(executor_type: str, replies: list[str]) -> CodeAgent:
    kwargs = {"timeout": 10} if executor_type == "sandbox" else {}
    return CodeAgent(
        tools=[],
        model=ScriptedModel(replies),
        executor_type=executor_type,
        executor_kwargs=kwargs,
        verbosity_level=0,
    )


def tasks(agent) -> list[str]:
    return [s.task for s in agent.memory.steps if isinstance(s, TaskStep)]


def test_undo_last_turn_drops_its_steps_and_takes_its_variables_back(executor_type):
    agent = code_agent(
        executor_type,
        [
            code("kept = 1\nfinal_answer(kept)"),
            code("kept = 2\nextra = 'x'\nfinal_answer(kept)"),
            code("final_answer((kept, 'extra' in globals()))"),
        ],
    )
    try:
        assert agent.run("first") == 1
        assert agent.run("second", reset=False) == 2
        assert agent.undo_last_turn() is True
        assert tasks(agent) == ["first"]
        assert tuple(agent.run("third", reset=False)) == (1, False)
        assert tasks(agent) == ["first", "third"]
    finally:
        agent.close()


def test_undo_in_a_streamed_run_restores_additional_args(executor_type):
    agent = code_agent(
        executor_type, [code("final_answer(a)"), code("final_answer(b)"), code("final_answer(1)")]
    )
    try:
        agent.run("first", additional_args={"a": 1})
        events = list(agent.run("second", stream=True, reset=False, additional_args={"b": 2}))
        assert events[-1].output == 2
        assert agent.undo_last_turn() is True
        assert agent.state == {"a": 1}
        assert agent.executor("'b' in globals()").output is False
    finally:
        agent.close()


def test_a_second_undo_drops_memory_but_leaves_variables(executor_type):
    agent = code_agent(executor_type, [code("kept = 1\nfinal_answer(1)"), code("final_answer(2)")])
    try:
        agent.run("first")
        agent.run("second", reset=False)
        assert agent.undo_last_turn() is True
        assert agent.undo_last_turn() is True
        assert agent.memory.steps == []
        assert agent.undo_last_turn() is False
        assert agent.executor("kept").output == 1
    finally:
        agent.close()


def test_reset_forgets_memory_state_and_variables(executor_type):
    agent = code_agent(executor_type, [code("kept = 1\nfinal_answer(kept)")])
    try:
        agent.run("first", additional_args={"a": 1})
        agent.reset()
        assert agent.memory.steps == []
        assert agent.state == {}
        assert agent.executor("'kept' in globals()").output is False
        assert agent.undo_last_turn() is False
    finally:
        agent.close()


def test_warm_up_starts_the_sandbox_worker_ahead_of_the_first_step():
    if not sys.platform.startswith("linux"):
        pytest.skip("Linux sandbox")
    agent = code_agent("sandbox", [])
    try:
        assert agent.executor.running is False
        agent.warm_up()
        wait_for(lambda: agent.executor.running, "the warm-up starts the worker")
    finally:
        agent.close()


def test_granted_read_paths_are_readable_by_the_code(tmp_path):
    if not sys.platform.startswith("linux"):
        pytest.skip("Linux sandbox")
    folder = tmp_path / "granted"
    folder.mkdir()
    (folder / "note.txt").write_text("hello")
    read = f"open({str(folder / 'note.txt')!r}).read()"
    agent = code_agent("sandbox", [code(f"final_answer({read})")])
    try:
        agent.grant_read_paths([folder])
        assert agent.run("read it") == "hello"
        agent.grant_read_paths([])
        with pytest.raises(AgentExecutionError):
            agent.executor(read)
    finally:
        agent.close()


@tool
def remember(value: int) -> int:
    """Returns its input.

    Args:
        value: A number.
    """
    return value


def test_tool_calling_agent_undo_restores_its_state():
    agent = ToolCallingAgent(
        tools=[remember],
        model=ScriptedModel(
            [
                ScriptedReply(tool_calls=[("final_answer", {"answer": "one"})]),
                ScriptedReply(tool_calls=[("final_answer", {"answer": "two"})]),
            ]
        ),
        verbosity_level=0,
    )
    assert agent.executor is None
    agent.warm_up()  # nothing to start
    agent.grant_read_paths(["/tmp"])  # nothing to grant
    agent.run("first", additional_args={"a": 1})
    agent.run("second", reset=False, additional_args={"b": 2})
    assert agent.state == {"a": 1, "b": 2}
    assert agent.undo_last_turn() is True
    assert agent.state == {"a": 1}
    assert tasks(agent)[0].startswith("first")
    agent.reset()
    assert agent.memory.steps == [] and agent.state == {}
    agent.close()
