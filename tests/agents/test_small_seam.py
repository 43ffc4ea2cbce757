"""The small-model mode plugs into the loop through one seam (`agents.loop.profile`): the
agents' source holds no small-model branch, the loop names `agents.small_model` in one place,
and a model without the profile gets the generic one (source read as text, scripted models)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from agents import CodeAgent, ScriptedModel, ToolCallingAgent
from agents.loop.profile import GENERIC, ModelProfile
from agents.small_model.profile import SmallModelProfile

LOOP = Path(__file__).resolve().parents[2] / "agents" / "loop"
TINY_ID = "SmolLM2-135M-Instruct.Q4_1.gguf"
# The constructors' public argument, passed straight on to `choose_profile` and the config.
PUBLIC_ARGUMENT = "small_model"


def small_model_branches(source: str) -> list[str]:
    """What in `source` asks about the small model: an import of its package, a name or an
    attribute that names it (other than the public argument), or a condition on the profile."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and "small_model" in (node.module or ""):
            found.append(f"line {node.lineno}: imports {node.module}")
        elif isinstance(node, ast.Import):
            found += [
                f"line {node.lineno}: imports {a.name}" for a in node.names if "small" in a.name
            ]
        elif (
            isinstance(node, ast.Name) and "small" in node.id.lower() and node.id != PUBLIC_ARGUMENT
        ):
            found.append(f"line {node.lineno}: names {node.id}")
        elif isinstance(node, ast.Attribute) and "small" in node.attr.lower():
            found.append(f"line {node.lineno}: uses .{node.attr}")
        elif isinstance(node, (ast.If, ast.IfExp, ast.While)):
            test = ast.unparse(node.test)
            if "small" in test.lower() or "profile" in test:
                found.append(f"line {node.lineno}: branches on {test}")
    return found


@pytest.mark.parametrize("name", ["code_agent.py", "tool_calling_agent.py", "agent.py"])
def test_the_agents_hold_no_small_model_branch(name):
    assert small_model_branches((LOOP / name).read_text()) == []


def test_the_branch_reader_sees_a_branch():
    sample = (
        "from agents.small_model.vote import vote\n"
        "if self.profile is not None:\n    pass\n"
        "x = self.small_model_profile\n"
        "y = 1 if isinstance(p, SmallModelProfile) else 2\n"
    )
    assert len(small_model_branches(sample)) == 5


def test_the_loop_names_the_small_model_package_in_one_place_only():
    importers = []
    for path in sorted(LOOP.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "agents.small_model"
            ):
                importers.append(path.name)
    assert importers == ["profile.py"]


def test_a_model_without_the_profile_gets_the_generic_one():
    big = ScriptedModel(["<code>\nfinal_answer(1)\n</code>"], model_id="big-model")
    agent = CodeAgent([], big, executor_type="local", max_steps=3)
    assert agent.profile is GENERIC and agent.max_steps == 3
    assert agent.run("Say one.") == 1
    assert not {"max_tokens", "grammar", "temperature", "seed"} & set(big.call_kwargs[0])
    tool_agent = ToolCallingAgent([], ScriptedModel([], model_id="big-model"))
    assert tool_agent.profile is GENERIC


def test_the_bundled_model_gets_the_small_profile_once_at_construction():
    tiny = ScriptedModel([], model_id=TINY_ID)
    assert isinstance(CodeAgent([], tiny, executor_type="local").profile, SmallModelProfile)
    assert isinstance(ToolCallingAgent([], tiny).profile, SmallModelProfile)
    assert CodeAgent([], tiny, executor_type="local", small_model=False).profile is GENERIC
    chosen = SmallModelProfile(drafts=1)
    assert CodeAgent([], tiny, executor_type="local", small_model=chosen).profile is chosen


def test_any_profile_plugs_in_through_the_protocol():
    """A profile of one's own changes the step's options, with no change to the loop."""

    class Capped(type(GENERIC)):
        def step_options(self, model, code_block_tags, retry):
            return {"max_tokens": 7}

    profile: ModelProfile = Capped()
    model = ScriptedModel(["<code>\nfinal_answer(2)\n</code>"], model_id="big-model")
    agent = CodeAgent([], model, executor_type="local", small_model=profile)
    assert agent.run("Say two.") == 2
    assert model.call_kwargs[0]["max_tokens"] == 7
