"""`GradioUI(agent)`: one agent definition, but every visitor gets their own copy."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agents import CodeAgent, ScriptedModel
from agents.errors import AgentExecutionError
from smolui.app.factory import as_factory


def test_each_conversation_gets_its_own_agent():
    agent = CodeAgent(tools=[], model=ScriptedModel([]), executor_type="local", verbosity_level=0)
    factory = as_factory(agent)
    first, second, third = factory(), factory(), factory()
    assert first is agent
    assert second is not agent and third is not second
    assert second.memory is not agent.memory and second.executor is not agent.executor
    factory.release(second)  # a copy is closed, not handed back
    assert factory() is not agent


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")
def test_each_conversation_can_read_its_own_uploads_and_no_others(tmp_path: Path):
    """`GradioUI(agent)` with the default sandbox: a conversation's code reads its upload
    folder, not another conversation's, and a user-given folder stays readable."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "common.txt").write_text("common")
    folders = []
    for name in ("first", "second"):
        folders.append(tmp_path / name)
        folders[-1].mkdir()
        (folders[-1] / "doc.txt").write_text(f"{name} secret")
    agent = CodeAgent(
        tools=[],
        model=ScriptedModel([]),
        verbosity_level=0,
        executor_kwargs={"read_only_paths": [str(shared)], "timeout": 10},
    )
    factory = as_factory(agent)
    first, second = factory(folders[0]), factory(folders[1])
    try:
        assert (
            first.executor(f"open({str(folders[0] / 'doc.txt')!r}).read()").output == "first secret"
        )
        assert (
            second.executor(f"open({str(folders[1] / 'doc.txt')!r}).read()").output
            == "second secret"
        )
        assert first.executor(f"open({str(shared / 'common.txt')!r}).read()").output == "common"
        # Refused, or not even visible (a worker under its own uid sees only its grants).
        with pytest.raises(AgentExecutionError, match="PermissionError|FileNotFoundError"):
            first.executor(f"open({str(folders[1] / 'doc.txt')!r}).read()")
        factory.release(first)  # the instance goes back; its next conversation reads only its own
        third = factory(None)
        assert third is agent
        with pytest.raises(AgentExecutionError, match="PermissionError|FileNotFoundError"):
            third.executor(f"open({str(folders[0] / 'doc.txt')!r}).read()")
    finally:
        agent.close()
        second.close()
