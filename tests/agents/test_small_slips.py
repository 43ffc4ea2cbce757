"""Other languages' idioms a small model writes, rewritten only where the meaning is beyond
doubt (pure, and through the agent with a scripted model)."""

from __future__ import annotations

import pytest

from agents import CodeAgent, ScriptedModel
from agents.small_model.slips import fix_paths, fix_slips

TINY_ID = "SmolLM2-135M-Instruct.Q4_1.gguf"
PATH_NOTE = "an attached file was opened at the path the message gives"


@pytest.mark.parametrize(
    ("code", "fixed"),
    [
        ("final_answer(13^2)", "final_answer(13 ** 2)"),
        ("x = 2.5 ^ 2\nprint(x)", "x = 2.5 ** 2\nprint(x)"),
        ('final_answer("ab".repeat(3))', 'final_answer("ab" * 3)'),
        ('final_answer("é".repeat(n + 1))', 'final_answer("é" * (n + 1))'),
        ('s = "-".repeat(2) + str(3^2)', 's = "-" * 2 + str(3 ** 2)'),
        ('final_answer("hello world".reverse())', 'final_answer("hello world"[::-1])'),
    ],
)
def test_slips_are_rewritten(code, fixed):
    new, notes = fix_slips(code)
    assert new == fixed
    assert notes


@pytest.mark.parametrize(
    "code",
    [
        "final_answer(a ^ b)",  # names: may be sets or flags
        "final_answer(2 ^ 3 ^ 2)",  # a chain: no single reading
        "final_answer(True ^ False)",
        "final_answer(series.repeat(3))",  # pandas/numpy have a real repeat
        'final_answer("ab".repeat(3, 4))',
        "words.reverse()",  # a list's own method
        "final_answer(13 ** 2)",
    ],
)
def test_anything_else_is_left_alone(code):
    assert fix_slips(code) == (code, [])


def test_the_agent_of_a_small_model_runs_the_rewritten_code_and_says_so():
    reply = "Thought: 13 squared.\n<code>\nfinal_answer(13^2)\n</code>"
    agent = CodeAgent([], ScriptedModel([reply], model_id=TINY_ID), executor_type="local")
    assert agent.run("Square 13 for me, please.") == 169
    step = agent.memory.steps[-1]
    assert step.code_action == "final_answer(13 ** 2)"
    assert "** (a power)" in step.observations
    big = CodeAgent([], ScriptedModel([reply], model_id="big-model"), executor_type="local")
    assert big.run("Square 13 for me, please.") == 15  # other models' code runs as written


ANNOUNCED = """The user attached 1 file to this message, saved read-only in the folder /up.
- "scores.txt": text file, 9 characters, 9 bytes; path: /up/scores.txt. First lines:
  > alice 81

What is alice's score?"""


@pytest.mark.parametrize(
    ("code", "fixed"),
    [
        ('text = open("/tmp/uploads/scores.txt").read()', "text = open('/up/scores.txt').read()"),
        (
            'a = open("scores.txt")\nb = open("/x/scores.txt")',
            "a = open('/up/scores.txt')\nb = open('/up/scores.txt')",
        ),
    ],
)
def test_an_attached_file_under_a_wrong_folder_is_opened_where_it_is(code, fixed):
    assert fix_paths(code, ANNOUNCED) == (fixed, [PATH_NOTE])


@pytest.mark.parametrize(
    "code",
    [
        'open("/up/scores.txt")',  # already right
        'open("/tmp/uploads/other.txt")',  # not an attached file's name
        "open(path)",  # not a literal
    ],
)
def test_other_paths_are_left_alone(code):
    assert fix_paths(code, ANNOUNCED) == (code, [])
    assert fix_paths('open("/x/scores.txt")', "What is in scores.txt?") == (
        'open("/x/scores.txt")',
        [],
    )
