"""The context window is built incrementally and gives the same prompt as building it anew."""

from __future__ import annotations

import random

import pytest

from agents import ActionStep, CodeAgent, ScriptedModel, TaskStep
from agents.errors import AgentError
from agents.memory.context import ContextWindow
from agents.memory.steps import AgentMemory, PlanningStep, SystemPromptStep, ToolCall
from agents.models.messages import ChatMessage


def count_tokens(text: str) -> int:
    return len(text) // 4


def texts(messages: list[ChatMessage]) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in messages]


def prompt_text(messages: list[ChatMessage]) -> str:
    return "\n".join(m.text for m in messages)


def random_step(rng: random.Random, number: int):
    kind = rng.random()
    if kind < 0.1:
        return TaskStep(task=f"task {number} " + "t" * rng.randint(0, 900))
    if kind < 0.2:
        plan = ChatMessage(role="assistant", content="plan")
        return PlanningStep([], plan, plan=f"plan {number} " + "p" * rng.randint(0, 900))
    step = ActionStep(
        step_number=number, model_output=f"step {number} " + "o" * rng.randint(0, 900)
    )
    step.tool_calls = [ToolCall("python_interpreter", "x = 1", f"call_{number}")]
    if rng.random() < 0.8:
        step.observations = "logs " + "b" * rng.randint(0, 3000)
    else:
        step.error = AgentError(f"error {number}")
    return step


@pytest.mark.parametrize("seed", range(8))
def test_incremental_prompts_equal_prompts_built_anew(seed):
    """Growing memory (and now and then an edit) gives, at every step, the prompt a fresh
    window builds from the same memory: same trimming, same notes."""
    rng = random.Random(seed)
    memory = AgentMemory("system " * 50)
    window = ContextWindow()
    budget = rng.choice([0, 400, 1500, 5000])
    trimmed = False
    memory.steps.append(TaskStep(task="first task"))
    for number in range(1, 120):
        memory.steps.append(random_step(rng, number))
        if rng.random() < 0.05 and len(memory.steps) > 3:  # an edit of an older step
            old = rng.choice([s for s in memory.steps if isinstance(s, ActionStep)] or [None])
            if old is not None:
                old.observations = "edited"
        if rng.random() < 0.03:  # undo: the last task and what followed leave memory
            last = max(i for i, s in enumerate(memory.steps) if isinstance(s, TaskStep))
            del memory.steps[max(last, 1) :]
        got = window.messages(memory.system_prompt, memory.steps, budget, count_tokens)
        fresh = ContextWindow().messages(memory.system_prompt, memory.steps, budget, count_tokens)
        assert texts(got) == texts(fresh), f"step {number}"
        trimmed = trimmed or any("left out" in m.text for m in fresh)
    assert trimmed == bool(budget), "a budget this small trims, no budget never does"


def test_an_edited_older_step_shows_in_the_next_prompt():
    memory = AgentMemory("system")
    window = ContextWindow()
    memory.steps.append(TaskStep(task="the task"))
    first = ActionStep(step_number=1, model_output="first", observations="seen")
    memory.steps.extend([first, ActionStep(step_number=2, model_output="second")])
    assert "Observation:\nseen" in prompt_text(
        window.messages(memory.system_prompt, memory.steps, 0, count_tokens)
    )
    first.observations = "changed"
    prompt = prompt_text(window.messages(memory.system_prompt, memory.steps, 0, count_tokens))
    assert "Observation:\nchanged" in prompt and "seen" not in prompt


def test_memory_replaced_or_cut_is_rendered_again():
    memory = AgentMemory("system")
    window = ContextWindow()
    memory.steps = [TaskStep(task="one"), ActionStep(step_number=1, model_output="a")]
    assert len(window.messages(memory.system_prompt, memory.steps, 0, count_tokens)) == 3
    memory.steps.pop()
    assert texts(window.messages(memory.system_prompt, memory.steps, 0, count_tokens)) == [
        ("system", "system"),
        ("user", "New task:\none"),
    ]
    memory.steps = [TaskStep(task="two")]
    prompt = texts(window.messages(SystemPromptStep("other"), memory.steps, 0, count_tokens))
    assert prompt == [("system", "other"), ("user", "New task:\ntwo")]


def test_a_step_callback_that_edits_older_steps_reaches_the_model():
    """smolagents' pattern: a callback drops the observations of older steps."""

    def forget_old_observations(step, agent):
        for old in agent.memory.steps:
            if isinstance(old, ActionStep) and old.step_number < step.step_number:
                old.observations = "(forgotten)"

    replies = [f"<code>\nprint({i + 1} * 1000 + 7)\n</code>" for i in range(3)]
    model = ScriptedModel([*replies, "<code>\nfinal_answer('done')\n</code>"])
    agent = CodeAgent(
        tools=[],
        model=model,
        executor_type="local",
        step_callbacks=[forget_old_observations],
        verbosity_level=0,
    )
    assert agent.run("go") == "done"
    last_prompt = str(model.calls[-1])
    assert "1007" not in last_prompt and "2007" not in last_prompt
    assert "3007" in last_prompt and "(forgotten)" in last_prompt
