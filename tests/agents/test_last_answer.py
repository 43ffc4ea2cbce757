"""The answer of a run whose steps ran out is never the text of a step (scripted models)."""

from __future__ import annotations

import pytest

from agents import CodeAgent, ScriptedModel
from agents.loop.last_answer import NO_ANSWER, answer_after_steps, is_step_text
from agents.memory.steps import ActionStep, TaskStep

TINY_ID = "SmolLM2-135M-Instruct.Q4_1.gguf"
STEP_REPLY = "Thought: I give the answer.\n<code>\nfinal_answer(result)\n"


def run_out_of_steps(replies: list[str], small: bool) -> CodeAgent:
    """An agent whose two steps run out; the last scripted reply answers the last call."""
    model = ScriptedModel(replies, model_id=TINY_ID if small else "big-model")
    agent = CodeAgent([], model, executor_type="local", max_steps=2, small_model=small)
    return agent


def test_a_step_written_as_the_last_answer_gives_the_value_printed_before():
    replies = ["<code>\nprint(6 * 7)\n</code>", "<code>\nundefined_name\n</code>", STEP_REPLY]
    agent = run_out_of_steps(replies, small=False)
    assert agent.run("What is 6 times 7?") == "42"


def test_a_value_returned_by_a_step_counts_and_a_step_that_gave_nothing_is_passed_over():
    replies = ["<code>\n12 * 2\n</code>", "<code>\nx = 1\n</code>", STEP_REPLY]
    agent = run_out_of_steps(replies, small=False)
    assert agent.run("What is twice 12?") == 24


def test_small_model_whose_steps_all_failed_says_plainly_that_it_found_no_answer():
    replies = [
        'Thought: number.\n<code>\nfinal_answer(int("ab"))\n</code>',
        "Thought: again.\n<code>\nfinal_answer(1 / 0)\n</code>",
        'Thought: so.\n<code>\nresult = "ab"\nfinal_answer(result.upper(3))\n',
    ]
    answer = run_out_of_steps(replies, small=True).run("Repeat 'ab' 3 times.")
    assert answer == NO_ANSWER.format(steps=2)
    assert not is_step_text(answer)


def test_unclear_output_is_not_taken_for_the_answer():
    replies = ['<code>\nprint("a")\nprint("b")\n</code>', "<code>\n1 / 0\n</code>", STEP_REPLY]
    answer = run_out_of_steps(replies, small=False).run("What is it?")
    assert answer.startswith("No answer was found")


def test_a_literal_final_answer_or_prose_in_the_last_reply_is_still_the_answer():
    failing = ["<code>\n1 / 0\n</code>", "<code>\n2 / 0\n</code>"]
    literal = run_out_of_steps([*failing, "Thought: so.\n<code>\nfinal_answer(391)\n"], False)
    assert literal.run("What is 17 * 23?") == 391
    prose = run_out_of_steps([*failing, "The answer is 391."], small=False)
    assert prose.run("What is 17 * 23?") == "The answer is 391."


@pytest.mark.parametrize(
    ("text", "step"),
    [
        ("Thought: x\n<code>\ny = 1\n", True),
        ("```py\nprint(2)\n```", True),
        ("final_answer(x)", True),
        ("print(total)", True),
        ("The answer is 5.", False),
        ("Saturday", False),
    ],
)
def test_is_step_text(text, step):
    assert is_step_text(text) is step


def test_only_the_current_runs_steps_count():
    old = ActionStep(step_number=1, action_output=99)
    new = ActionStep(step_number=1, observations="Execution logs:\nTraceback", error=None)
    new.observations = "Execution logs: (none)"
    steps = [TaskStep(task="old"), old, TaskStep(task="new"), new]
    assert answer_after_steps(STEP_REPLY, steps) == NO_ANSWER.format(steps=1)
    assert answer_after_steps(STEP_REPLY, steps[:2]) == 99


def test_a_json_tool_call_as_the_last_answer():
    steps = [TaskStep(task="t"), ActionStep(step_number=1, action_output=7)]
    final = '{"name": "final_answer", "arguments": {"answer": 12}}'
    assert answer_after_steps(final, steps) == 12
    other = '{"name": "python_interpreter", "arguments": {"code": "print(1)"}}'
    assert answer_after_steps(other, steps) == 7
    record = '{"name": "Bob", "age": 3}'  # an answer that happens to be JSON stays one
    assert answer_after_steps(record, steps) == record
