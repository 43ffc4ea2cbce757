"""The small-model profile: prompt and call options (scripted), repair rules (scripted and
pure), and the grammar/format path on the real bundled SmolLM2 (slow)."""

from __future__ import annotations

import importlib.util
import re

import pytest

from agents import CodeAgent, ScriptedModel
from agents.loop.last_answer import answer_value
from agents.loop.repair import fix_syntax, repair_code
from agents.small_model.profile import SmallModelProfile, is_small_model, select_profile
from agents.small_model.repair import (
    answer_with_last_expression,
    asks_for_value,
    missing_imports,
    small_repair,
)

TINY_ID = "SmolLM2-135M-Instruct.Q4_1.gguf"
STEP_FORMAT = re.compile(r"^Thought: [^\n]+\n<code>\n([^\n]+\n)+$")


class GrammarScriptedModel(ScriptedModel):
    """A scripted model that says it can follow a grammar (and records the one it gets)."""

    supports_grammar = True


def agent_for(model: ScriptedModel, **kwargs) -> CodeAgent:
    kwargs.setdefault("max_steps", 3)
    return CodeAgent([], model, executor_type="local", **kwargs)


# -- choosing the profile ---------------------------------------------------------------


def test_profile_is_chosen_for_tiny_models_only():
    assert is_small_model(ScriptedModel(model_id=TINY_ID))
    assert is_small_model(ScriptedModel(model_id="HuggingFaceTB/SmolLM2-360M-Instruct"))
    assert not is_small_model(ScriptedModel(model_id="Qwen/Qwen2.5-Coder-32B-Instruct"))
    assert select_profile(ScriptedModel(model_id="gpt-4o"), True) is not None
    assert select_profile(ScriptedModel(model_id=TINY_ID), False) is None


def test_tiny_model_gets_the_short_prompt_and_a_capped_grammar_step():
    # Two drafts that agree end the vote (see test_small_vote.py).
    model = GrammarScriptedModel(
        ["Thought: add.\n<code>\nfinal_answer(2 + 2)\n"] * 2, model_id=TINY_ID
    )
    agent = agent_for(model)
    full = agent_for(ScriptedModel(model_id="big-model"))
    small_prompt, full_prompt = agent.initialize_system_prompt(), full.initialize_system_prompt()
    assert "final_answer(...)" in small_prompt
    assert len(small_prompt) < len(full_prompt) / 3
    assert agent.run("What is 2 + 2?") == 4
    call = model.call_kwargs[0]
    assert call["max_tokens"] == SmallModelProfile().max_tokens
    assert call["grammar"] == SmallModelProfile().grammar(("<code>", "</code>"))
    assert "</code>" in call["stop_sequences"]


def test_no_grammar_for_a_backend_without_one_and_nothing_when_forced_off():
    plain = ScriptedModel(["<code>\nfinal_answer(1)\n</code>"], model_id=TINY_ID)
    agent_for(plain).run("What is one?")
    assert "grammar" not in plain.call_kwargs[0] and "max_tokens" in plain.call_kwargs[0]
    off = ScriptedModel(["<code>\nfinal_answer(1)\n</code>"], model_id=TINY_ID)
    agent_for(off, small_model=False).run("What is one?")
    assert "max_tokens" not in off.call_kwargs[0]


def test_later_steps_sample_and_the_last_answer_is_capped_too():
    replies = ["Thought: look.\n<code>\nx = 1\n</code>", "Thought: again.\n<code>\ny = 2\n</code>"]
    last_reply = "Thought: so.\n<code>\nfinal_answer(3)\n"
    model = GrammarScriptedModel([*replies, last_reply], model_id=TINY_ID)
    agent = agent_for(model, max_steps=2, small_model=SmallModelProfile(drafts=1))
    assert agent.run("What is 1 + 2?") == 3  # the value of the final_answer it wrote
    first, second, last = model.call_kwargs
    assert first["temperature"] == 0 and second["temperature"] > 0
    assert last["max_tokens"] == SmallModelProfile().max_tokens and "grammar" not in last
    assert "</code>" in last["stop_sequences"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Thought: x\n<code>\nfinal_answer(391)\n", 391),
        ('final_answer("Saturday")', "Saturday"),
        ("final_answer((3, 4))", (3, 4)),
        ("final_answer(x)", "final_answer(x)"),
        ("It is 5.", "It is 5."),
    ],
)
def test_last_answer_value(text, value):
    assert answer_value(text) == value


def test_small_model_gets_a_first_try_and_one_fix_per_run():
    assert agent_for(ScriptedModel([], model_id=TINY_ID), max_steps=4).max_steps == 2
    assert agent_for(ScriptedModel([], model_id=TINY_ID), max_steps=1).max_steps == 1
    assert agent_for(ScriptedModel([], model_id=TINY_ID), small_model=False).max_steps == 3


def test_grammar_uses_the_agents_code_tags():
    grammar = SmallModelProfile(max_code_lines=5).grammar(("```python", "```"))
    assert '"```python"' in grammar and "line{0,4} last" in grammar


# -- repair, through the agent -----------------------------------------------------------


def test_bare_last_expression_becomes_the_final_answer_and_is_recorded():
    model = ScriptedModel(["Thought: multiply.\n<code>\nx = 19\nx * 27\n</code>"], model_id=TINY_ID)
    agent = agent_for(model)
    assert agent.run("What does 19 * 27 give?") == 513
    step = agent.memory.steps[-1]
    assert step.code_action == "x = 19\nfinal_answer(x * 27)"
    assert "repaired" in step.observations and "final_answer" in step.observations
    assert len(model.calls) == 1


def test_bare_expression_left_alone_without_the_profile():
    replies = ["<code>\n19 * 27\n</code>", "<code>\nfinal_answer('done')\n</code>"]
    model = ScriptedModel(replies, model_id="big-model")
    agent = agent_for(model)
    assert agent.run("What does 19 * 27 give?") == "done"
    first = agent.memory.steps[1]
    assert first.code_action == "19 * 27" and "513" in first.observations
    assert "repaired" not in first.observations


def test_unclosed_bracket_is_closed_before_running():
    model = ScriptedModel(['Thought: count.\n<code>\nfinal_answer(len("abcd")\n'], model_id="m")
    agent = agent_for(model)
    assert agent.run("How long is abcd?") == 4
    assert "unclosed" in agent.memory.steps[-1].observations


def test_unfixable_code_still_reaches_the_model_as_an_error():
    replies = ["<code>\nfinal_answer(1 +* 2)\n</code>", "<code>\nfinal_answer(3)\n</code>"]
    agent = agent_for(ScriptedModel(replies, model_id=TINY_ID))
    assert agent.run("What is 1 + 2?") == 3
    failed = agent.memory.steps[1]
    assert failed.error is not None and failed.code_action == "final_answer(1 +* 2)"


# -- repair rules ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "fixed"),
    [
        ('print("hi"', 'print("hi")'),
        ("x = [1, 2\nfinal_answer(sum(x))", "x = [1, 2]\nfinal_answer(sum(x))"),
        ("print('open", "print('open')"),
        ("```python\nfinal_answer(2)\n```", "final_answer(2)"),
        ("final_answer(2)\nThis returns the number two.", "final_answer(2)"),
        ("Here is the code to run:\nx = 3\nfinal_answer(x)", "x = 3\nfinal_answer(x)"),
    ],
)
def test_fix_syntax(code, fixed):
    assert fix_syntax(code)[0] == fixed
    assert fix_syntax(code)[1]


@pytest.mark.parametrize("code", ["final_answer(1 +* 2)", "x = (1]\nprint(x)", "def f(:\n  pass"])
def test_fix_syntax_gives_up_when_nothing_obvious_works(code):
    assert fix_syntax(code) == (code, "")


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("17 * 23", "final_answer(17 * 23)"),
        ("t = 'abc'\nt[::-1]", "t = 'abc'\nfinal_answer(t[::-1])"),
        ("len(\n  'abc'\n)", "final_answer(len(\n  'abc'\n))"),
        ("print(5)", "final_answer(5)"),
        ("x = 2\nprint(f'x is {x}')", "x = 2\nfinal_answer(f'x is {x}')"),
        ("text = open('a.txt').read()\nprint(text)", None),
        ("print('a', 'b')", None),
        ("x = 5", None),
        ("final_answer(5)\n5", None),
        ("read_document(path='a.txt')", None),
        ("'just a string'", None),
    ],
)
def test_answer_with_last_expression(code, expected):
    assert answer_with_last_expression(code, {"read_document"}) == expected


@pytest.mark.parametrize(
    ("code", "missing"),
    [
        ("final_answer(math.sqrt(144))", ["math"]),
        (
            "d = datetime.date(2000, 1, 1)\nfinal_answer(statistics.mean([1, 2]))",
            ["datetime", "statistics"],
        ),
        ("import math\nfinal_answer(math.pi)", []),
        ("from datetime import date\nfinal_answer(date.today())", []),
        ("math = 3\nfinal_answer(math.real)", []),
        ("final_answer(numpy.sqrt(4))", []),
    ],
)
def test_missing_imports(code, missing):
    assert missing_imports(code) == missing


def test_missing_import_is_added_for_small_models_only():
    fixed = small_repair("final_answer(math.sqrt(144))", "What is it?")
    assert fixed.code == "import math\nfinal_answer(math.sqrt(144))" and "import" in fixed.note
    assert repair_code("final_answer(math.sqrt(144))").code == "final_answer(math.sqrt(144))"


def test_last_expression_rule_needs_a_task_that_asks_for_a_value():
    assert asks_for_value("What is 2 + 2?") and asks_for_value("Convert 5 km to meters.")
    assert not asks_for_value("Plot the sales per month.") and not asks_for_value(None)
    assert small_repair("2 + 2", "Plot it").code == "2 + 2"
    repaired = small_repair("2 + 2", "What is 2 + 2?")
    assert repaired.code == "final_answer(2 + 2)" and repaired.note.startswith("Note:")
    assert small_repair("x = 1", "What is x?").notes == []


# -- the real bundled model (llama.cpp) --------------------------------------------------


@pytest.fixture(scope="module")
def bundled_model():
    # Not imported here: the model sets llama.cpp's thread wait policy before loading it.
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    from agents.models.spec import default_model

    return default_model(n_ctx=2048, temperature=0)


@pytest.mark.slow
def test_grammar_forces_the_step_format_even_for_a_chatty_request(bundled_model):
    """Without the grammar this request gets prose; with it, a thought and a code block."""
    profile = SmallModelProfile(max_code_lines=3, max_line_chars=60)  # short, to be quick
    agent = CodeAgent([], bundled_model, executor_type="local")
    assert isinstance(agent.profile, SmallModelProfile)
    messages = [
        {"role": "system", "content": agent.initialize_system_prompt()},
        {"role": "user", "content": "Tell me a long story about a dragon."},
    ]
    answer = bundled_model.generate(
        messages,
        stop_sequences=["</code>"],
        **profile.step_options(bundled_model, agent.code_block_tags),
    )
    assert STEP_FORMAT.match(answer.text), answer.text
    lines = answer.text.splitlines()
    assert len(lines) <= 2 + 3 and lines[-1].startswith(("final_answer(", "print("))
    assert not any(line.startswith("def ") for line in lines)


@pytest.mark.slow
def test_bundled_model_answers_a_simple_task_in_one_formatted_step(bundled_model):
    agent = CodeAgent([], bundled_model, executor_type="sandbox", max_steps=2)
    try:
        answer = agent.run("What does 19 * 27 give?")
        first = agent.memory.steps[1]
        assert STEP_FORMAT.match(first.model_output.removesuffix("</code>")), first.model_output
        assert first.error is None
        assert answer == 513
    finally:
        agent.close()
