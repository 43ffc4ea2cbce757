"""The first minute: the first example card of the page, sent to the bundled offline model
(SmolLM2-135M through llama.cpp, the app's default without an API key) with the app's tools
and the sandbox, gets the right answer from code the agent wrote and ran (slow: real model)."""

from __future__ import annotations

import importlib.util

import pytest

from agents import CodeAgent
from agents.memory.steps import ActionStep
from agents.observability.console import LogLevel
from smolui.ui.layout import default_examples
from tools.toolbox import app_tools

# The 20th Fibonacci number, counting 1, 1, 2, 3, ...
FIRST_CARD_ANSWER = 6765


@pytest.fixture(scope="module")
def offline_model():
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    from agents.models.spec import model_from_spec

    return model_from_spec("local")  # what the app loads with no model named


@pytest.mark.slow
def test_the_offline_model_answers_the_first_example_card(offline_model, tmp_path):
    card = default_examples()[0]
    assert not card["files"]
    assert "20th Fibonacci" in card["text"], "the first card changed: update FIRST_CARD_ANSWER"
    uploads = tmp_path / "uploads"
    uploads.mkdir(mode=0o700)
    agent = CodeAgent(
        app_tools(uploads),
        offline_model,
        executor_type="sandbox",
        executor_kwargs={"read_only_paths": [str(uploads)]},
        verbosity_level=LogLevel.OFF,
    )
    try:
        answer = agent.run(card["text"])
        actions = [step for step in agent.memory.steps if isinstance(step, ActionStep)]
    finally:
        agent.close()
    assert float(answer) == FIRST_CARD_ANSWER, [step.model_output for step in actions]
    # Worked out by code the agent ran, not written out as a number.
    assert str(FIRST_CARD_ANSWER) not in (actions[-1].code_action or "")
