"""Agents saved to folders (and dicts) and loaded back; the saved app.py starts."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from test_hub import MeanTool, hypotenuse

from agents import CodeAgent, ScriptedModel, ScriptedReply, ToolCallingAgent
from agents.persistence.serialization import (
    agent_from_dict,
    agent_from_folder,
    agent_to_dict,
    model_from_dict,
    save_agent,
)
from tools import tool

REPO = Path(__file__).resolve().parents[2]


@tool
def shout(text: str) -> str:
    """Upper-cases a text.

    Args:
        text: The text.
    """
    return text.upper() + "!"


def manager_script() -> list:
    code = (
        "side = hypotenuse(a=3, b=4)\n"
        "print('side', side)\n"
        "avg = mean(values=[side, 5.0])\n"
        "report = helper(task='shout hello')\n"
        "print(report)\n"
        "final_answer(f'{avg}')"
    )
    return [f"Thought: compute.\n<code>\n{code}\n</code>"]


def helper_script() -> list:
    return [
        ScriptedReply(tool_calls=[("shout", {"text": "hello"})]),
        ScriptedReply(tool_calls=[("final_answer", {"answer": "HELLO!"})]),
    ]


def build_agent() -> CodeAgent:
    helper = ToolCallingAgent(
        tools=[shout],
        model=ScriptedModel(helper_script()),
        name="helper",
        description="Shouts things.",
        max_steps=4,
        verbosity_level=-1,
    )
    return CodeAgent(
        tools=[hypotenuse, MeanTool()],
        model=ScriptedModel(manager_script()),
        managed_agents=[helper],
        additional_authorized_imports=["statistics"],
        executor_type="local",
        max_steps=5,
        instructions="Be brief.",
        verbosity_level=-1,
    )


def run_and_trace(agent) -> tuple:
    answer = agent.run("compute")
    helper = agent.managed_agents["helper"].agent
    observations = [getattr(s, "observations", None) for s in agent.memory.steps]
    return answer, observations, agent.model.calls[0], helper.model.calls[0]


def with_fresh_scripts(agent):
    agent.model = ScriptedModel(manager_script())
    agent.managed_agents["helper"].agent.model = ScriptedModel(helper_script())
    return agent


def test_save_writes_the_documented_layout(tmp_path: Path) -> None:
    save_agent(build_agent(), tmp_path / "saved")
    root = tmp_path / "saved"
    for name in ("agent.json", "prompts.yaml", "requirements.txt", "app.py"):
        assert (root / name).is_file(), name
    assert sorted(p.name for p in (root / "tools").iterdir()) == ["hypotenuse.py", "mean.py"]
    assert (root / "managed_agents" / "helper" / "tools" / "shout.py").is_file()
    data = json.loads((root / "agent.json").read_text())
    assert data["class"] == "CodeAgent" and data["tools"] == ["hypotenuse", "mean"]
    assert data["managed_agents"] == {"helper": "ToolCallingAgent"}
    assert data["additional_authorized_imports"] == ["statistics"]
    assert data["model"]["class"] == "ScriptedModel"
    assert "numpy" in (root / "requirements.txt").read_text().split()
    assert "from smolui import GradioUI" in (root / "app.py").read_text()


def test_folder_round_trip_runs_identically(tmp_path: Path) -> None:
    original = build_agent()
    save_agent(original, tmp_path / "saved")
    expected = run_and_trace(original)
    loaded = agent_from_folder(tmp_path / "saved", trust_remote_code=True, verbosity_level=-1)
    assert type(loaded) is CodeAgent and loaded.max_steps == 5
    assert sorted(loaded.tools) == sorted(original.tools)
    assert loaded.prompt_templates == original.prompt_templates
    assert run_and_trace(with_fresh_scripts(loaded)) == expected
    assert expected[0] == "10.0"


def test_agent_without_tools_loads_without_trust(tmp_path: Path) -> None:
    agent = ToolCallingAgent(tools=[], model=ScriptedModel(["x"]), verbosity_level=-1)
    save_agent(agent, tmp_path / "plain")
    loaded = agent_from_folder(tmp_path / "plain", verbosity_level=-1)
    assert type(loaded) is ToolCallingAgent and list(loaded.tools) == ["final_answer"]


def test_dict_round_trip_runs_identically() -> None:
    original = build_agent()
    data = json.loads(json.dumps(agent_to_dict(original)))  # proves it is plain JSON
    expected = run_and_trace(original)
    loaded = agent_from_dict(data, trust_remote_code=True, verbosity_level=-1)
    assert run_and_trace(with_fresh_scripts(loaded)) == expected


def test_resaving_a_loaded_agent(tmp_path: Path) -> None:
    loaded = agent_from_dict(agent_to_dict(build_agent()), trust_remote_code=True)
    save_agent(loaded, tmp_path / "again")
    assert "def hypotenuse" in (tmp_path / "again" / "tools" / "hypotenuse.py").read_text()


def test_unknown_model_class_is_a_clear_error() -> None:
    with pytest.raises(Exception, match="pass model="):
        model_from_dict({"class": "NoSuchModel", "model_id": "x"})


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_saved_app_starts(tmp_path: Path) -> None:
    save_agent(build_agent(), tmp_path / "space")
    port = _free_port()
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(REPO),
        GRADIO_SERVER_NAME="127.0.0.1",
        GRADIO_SERVER_PORT=str(port),
        GRADIO_ANALYTICS_ENABLED="False",
        HF_HUB_OFFLINE="1",
    )
    process = subprocess.Popen(
        [sys.executable, "app.py"],
        cwd=tmp_path / "space",
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 90
        status = None
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as page:
                    status = page.status
                    break
            except OSError:
                time.sleep(0.5)
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=20)
    assert status == 200, output.decode(errors="replace")[-3000:]


def test_save_leaves_executor_credentials_out(tmp_path: Path, caplog) -> None:
    agent = CodeAgent(
        tools=[],
        model=ScriptedModel([]),
        executor_type="jupyter",
        executor_kwargs={"url": "http://127.0.0.1:9", "token": "s3cret-token", "timeout": 5},
    )
    with caplog.at_level("WARNING", logger="agents.persistence.serialization"):
        agent.save(tmp_path / "saved")
    saved = "".join(p.read_text() for p in (tmp_path / "saved").rglob("*") if p.is_file())
    assert "s3cret-token" not in saved
    data = json.loads((tmp_path / "saved" / "agent.json").read_text())
    assert data["executor_kwargs"] == {"url": "http://127.0.0.1:9", "timeout": 5}
    assert "executor_kwargs token" in caplog.text and "SMOLUI_EXECUTOR_TOKEN" in caplog.text
