"""Quantities worked out by a loop, in the small-model mode: the worked examples of that kind
(picked for a sequence or range task, and right when run), and an ordinal in the task ("the
20th") that a draft may not simply echo as its answer (scripted model, real executor)."""

from __future__ import annotations

import pytest

from agents import CodeAgent, ScriptedModel
from agents.executors.local import LocalPythonExecutor
from agents.small_model.examples import example_bank, pick_examples
from agents.small_model.vote import answerable_numbers, is_guess
from smolui.ui.layout import default_examples

TINY_ID = "SmolLM2-135M-Instruct.Q4_1.gguf"
CATEGORY = "sequences and loops"
# The answer of the first example card (the 20th Fibonacci number, counting 1, 1, 2, ...):
# no worked example may show it.
FIRST_CARD_ANSWER = 6765


class GrammarScriptedModel(ScriptedModel):
    """A scripted model that says it follows a grammar (drafts are written for such models)."""

    supports_grammar = True


def step(code: str) -> str:
    return f"Thought: work it out.\n<code>\n{code}\n</code>"


# -- ordinals ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Which is the 30th Lucas number?", set()),
        ("Give the 1st, 2nd and 3rd terms after 5.", {5.0}),
        ("Take 20 steps of 3.", {20.0, 3.0}),
        ("The 4TH of 12 items.", {12.0}),
    ],
)
def test_an_ordinal_is_not_a_number_the_answer_may_echo(text, numbers):
    assert answerable_numbers(text) == numbers


def test_echoing_the_position_asked_for_is_a_guess():
    known = answerable_numbers("Which is the 30th Lucas number?")
    assert is_guess("final_answer(30)", known)
    assert not is_guess("terms = [2, 1]\nfinal_answer(terms[-1])", known)


def test_two_drafts_echoing_the_position_do_not_outvote_the_loop():
    loop = "terms = [2, 1]\nwhile len(terms) < 30:\n    terms.append(terms[-1] + terms[-2])"
    replies = [
        step("final_answer(30)"),
        step("final_answer(30)"),
        step(f"{loop}\nfinal_answer(terms[-1])"),
    ]
    model = GrammarScriptedModel(replies, model_id=TINY_ID)
    agent = CodeAgent([], model, executor_type="local", max_steps=2)
    assert agent.run("Which is the 30th Lucas number?") == 1149851  # 2, 1, 3, 4, 7, ...
    note = agent.memory.steps[-1].observations
    assert "2 guessed 30 without working it out" in note and "draft 3 runs" in note


# -- the worked examples -----------------------------------------------------------------


def loop_examples():
    return [example for example in example_bank() if example.category == CATEGORY]


def test_the_category_teaches_a_sequence_a_total_a_count_and_a_product():
    assert len(loop_examples()) >= 4
    codes = "\n".join(example.code for example in loop_examples())
    for pattern in ("while len(terms) <", "sum(n for n in range(", "sum(1 for n in range("):
        assert pattern in codes


@pytest.mark.parametrize("example", loop_examples(), ids=lambda example: example.task[:40])
def test_each_loop_example_runs_and_gives_an_answer(example):
    executor = LocalPythonExecutor()
    executor.send_tools({})
    try:
        result = executor(example.code)
    finally:
        executor.close()
    assert result.is_final_answer and isinstance(result.output, int)
    assert result.output != FIRST_CARD_ANSWER


def test_a_sequence_task_gets_the_loop_examples_the_closest_last():
    picked = pick_examples("Which is the 30th Lucas number in the sequence 2, 1, 3, 4?")
    assert [example.category for example in picked] == [CATEGORY] * 3
    picked = pick_examples("Give the 14th Fibonacci number.")
    assert "Fibonacci" in picked[-1].task


def test_the_first_example_card_gets_the_loop_examples_but_not_its_own_answer():
    card = default_examples()[0]["text"]
    assert "20th Fibonacci" in card, "the first card changed: check this test and the slow one"
    picked = pick_examples(card)
    assert {example.category for example in picked} == {CATEGORY}
    for example in example_bank():
        shown = f"{example.task} {example.thought} {example.code}"
        assert "20th" not in shown and str(FIRST_CARD_ANSWER) not in shown, example.task
        assert example.task.lower() != card.lower()
