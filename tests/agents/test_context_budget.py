"""Long conversations stay inside the model's context window."""

from __future__ import annotations

from agents import CodeAgent, ScriptedModel, ToolCallingAgent
from agents.memory.context import StepMessages, fit_to_budget
from agents.models.messages import ChatMessage

BUDGET = 3000


def turn_reply(turn: int) -> str:
    noise = "x" * 3000
    return (
        f"Thought: turn {turn}.\n<code>\nprint('{noise}')\nfinal_answer('answer {turn}')\n</code>"
    )


def test_200_turn_conversation_stays_under_budget_and_keeps_latest_turn():
    model = ScriptedModel([turn_reply(t) for t in range(200)])
    agent = CodeAgent(tools=[], model=model, max_context_tokens=BUDGET, verbosity_level=-1)
    for turn in range(200):
        assert agent.run(f"Task number {turn}", reset=False) == f"answer {turn}"
    assert len(model.calls) == 200
    sizes = []
    for messages in model.calls:
        text = "".join(str(block.get("text", "")) for m in messages for block in m["content"])
        sizes.append(model.count_tokens(text))
    assert max(sizes) <= BUDGET
    last_prompt = str(model.calls[-1])
    assert "Task number 199" in last_prompt  # the current task is whole
    assert "left out to fit the model's context window" in last_prompt
    assert "Task number 0\\n" not in last_prompt and "Task number 0'" not in last_prompt
    # The latest turn's steps are intact inside the agent's next prompt.
    messages = agent.write_memory_to_messages()
    latest_observation = agent.memory.steps[-1].observations
    assert any(latest_observation in m.text for m in messages)
    assert len(agent.memory.steps) == 400  # memory itself is never trimmed


def test_budget_off_sends_everything():
    model = ScriptedModel([turn_reply(t) for t in range(5)])
    agent = CodeAgent(tools=[], model=model, max_context_tokens=0, verbosity_level=-1)
    for turn in range(5):
        agent.run(f"Task number {turn}", reset=False)
    assert "Task number 0" in str(model.calls[-1])


def test_default_budget_follows_model_context_size():
    model = ScriptedModel([turn_reply(t) for t in range(30)], context_size=4096)
    agent = ToolCallingAgent(tools=[], model=model, verbosity_level=-1)
    assert agent._context_budget() == 3072


def _msg(text: str) -> ChatMessage:
    return ChatMessage(role="user", content=[{"type": "text", "text": text}])


def test_shortening_comes_before_dropping():
    head = [_msg("system")]
    groups = [StepMessages([_msg("a" * 4000)]), StepMessages([_msg("latest")], protected=True)]
    out = fit_to_budget(head, groups, budget=300, count_tokens=lambda t: len(t) // 4)
    texts = [m.text for m in out]
    assert texts[0] == "system" and texts[-1] == "latest"
    assert "characters left out" in texts[1]


def test_dropping_adds_a_marker():
    head = [_msg("system")]
    groups = [StepMessages([_msg("old " * 50)], is_task=True) for _ in range(5)]
    groups.append(StepMessages([_msg("latest")], protected=True))
    out = fit_to_budget(head, groups, budget=40, count_tokens=lambda t: len(t) // 4)
    texts = [m.text for m in out]
    assert "5 earlier tasks" in texts[1]
    assert texts[-1] == "latest"


def test_a_single_long_turn_is_trimmed_but_keeps_its_task_and_latest_steps():
    replies = [f"<code>\nprint('{'y' * 1500}')\nstep_{i} = {i}\n</code>" for i in range(12)]
    model = ScriptedModel([*replies, "<code>\nfinal_answer('done')\n</code>"])
    agent = CodeAgent(tools=[], model=model, max_context_tokens=BUDGET, verbosity_level=0)
    assert agent.run("One long task") == "done"
    last = model.calls[-1]
    text = str(last)
    assert "One long task" in text
    assert "step_11 = 11" in text and "step_10 = 10" in text  # the latest steps, whole
    assert "left out" in text  # older steps of the same turn were shortened or dropped
    sizes = [
        model.count_tokens("".join(str(b.get("text", "")) for m in c for b in m["content"]))
        for c in model.calls
    ]
    assert max(sizes) <= BUDGET


def test_protected_steps_but_the_last_are_shortened_when_nothing_else_is_left():
    head = [_msg("system")]
    groups = [
        StepMessages([_msg("task")], is_task=True, protected=True),
        StepMessages([_msg("b" * 4000)], protected=True),
        StepMessages([_msg("c" * 800)], protected=True),
    ]
    out = fit_to_budget(head, groups, budget=400, count_tokens=lambda t: len(t) // 4)
    texts = [m.text for m in out]
    assert texts[1] == "task" and "characters left out" in texts[2] and texts[3] == "c" * 800
