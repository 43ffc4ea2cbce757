"""Self-consistency for the small model: drafts of a step, tried apart and voted on (scripted
model, real executors)."""

from __future__ import annotations

import sys

import pytest

from agents import CodeAgent, ScriptedModel
from agents.errors import AgentExecutionError
from agents.executors.local import LocalPythonExecutor
from agents.executors.sandbox import SandboxExecutor
from agents.loop.repair import Repair
from agents.models.messages import ChatMessage, ChatMessageStreamDelta
from agents.small_model.profile import SmallModelProfile
from agents.small_model.thought import thought_expression
from agents.small_model.vote import (
    ANSWER,
    FAILED,
    GUESS,
    NO_CODE,
    PRINTED,
    Ballot,
    Draft,
    DraftJudge,
    answer_key,
    choose,
    is_guess,
    isolated,
    numbers_in,
)

TINY_ID = "SmolLM2-135M-Instruct.Q4_1.gguf"


class GrammarScriptedModel(ScriptedModel):
    """A scripted model that says it follows a grammar (drafts are written for such models)."""

    supports_grammar = True


def step(code: str) -> str:
    return f"Thought: work it out.\n<code>\n{code}\n</code>"


def draft(outcome: str, answer=None) -> Draft:
    return Draft(ChatMessage(role="assistant", content=f"{outcome} {answer}"), outcome, answer)


# -- choosing ----------------------------------------------------------------------------


def test_the_answer_most_drafts_agree_on_wins_over_the_first_draft():
    drafts = [draft(ANSWER, 1040), draft(ANSWER, 1020), draft(ANSWER, 1020.0)]
    assert choose(drafts) is drafts[1]


def test_a_tie_goes_to_the_answer_given_first():
    drafts = [draft(FAILED), draft(ANSWER, "b"), draft(ANSWER, "a")]
    assert choose(drafts) is drafts[1]


def test_without_any_answer_a_draft_that_ran_comes_before_the_first_draft():
    drafts = [draft(FAILED), draft(GUESS, 7), draft(PRINTED), draft(PRINTED)]
    assert choose(drafts) is drafts[2]
    nothing = [draft(NO_CODE), draft(GUESS, 7)]
    assert choose(nothing) is nothing[0]


def test_guesses_never_outvote_a_worked_out_answer():
    drafts = [draft(GUESS, 60), draft(GUESS, 60), draft(ANSWER, 3600)]
    assert choose(drafts) is drafts[2]


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [(3, 3.0, True), ("3", 3, True), (" yes ", "yes", True), ("Yes", "yes", False), (2, 3, False)],
)
def test_answer_key(first, second, same):
    assert (answer_key(first) == answer_key(second)) is same


# -- guesses -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "guess"),
    [
        ("final_answer(1040)", True),
        ('final_answer("1040")', True),
        ("final_answer(-5)", True),
        ("final_answer(17 * 60)", False),
        ("final_answer(17)", False),  # the task shows 17
        ("final_answer(1,020)", False),  # not one literal argument
        ('final_answer("yes")', False),
        ("x = 1040\nfinal_answer(x)", False),
    ],
)
def test_a_number_written_out_that_the_task_does_not_show_is_a_guess(code, guess):
    known = numbers_in("A lap takes 17 minutes. Give that in seconds.")
    assert is_guess(code, known) is guess


def test_numbers_in_reads_decimals_and_thousands_separators():
    assert numbers_in("Convert 2.5 km; 1,000 items; score-7") == {2.5, 1000.0, 7.0}


# -- trying drafts apart -----------------------------------------------------------------


@pytest.fixture(params=["local", "sandbox"])
def executor(request):
    if request.param == "sandbox" and not sys.platform.startswith("linux"):
        pytest.skip("Linux sandbox")
    made = LocalPythonExecutor() if request.param == "local" else SandboxExecutor(timeout=10)
    made.send_tools({})
    yield made
    made.close()


def test_an_isolated_draft_answers_and_leaves_no_variables_behind(executor):
    executor("kept = 2")
    result = executor(isolated("import math\nx = kept * 3\nfinal_answer(math.sqrt(x * 6))"))
    assert result.is_final_answer and result.output == 6.0
    assert executor("kept").output == 2
    for name in ("x", "math", "__smolui_draft__"):
        with pytest.raises(AgentExecutionError):
            executor(name)


def test_an_isolated_draft_without_a_final_answer_still_prints(executor):
    result = executor(isolated('text = "a b c"\nprint(len(text.split()))'))
    assert not result.is_final_answer and result.logs.strip() == "3"


# -- through the agent -------------------------------------------------------------------


def agent_for(model: ScriptedModel, **kwargs) -> CodeAgent:
    kwargs.setdefault("max_steps", 2)
    return CodeAgent([], model, executor_type="local", **kwargs)


def test_the_step_runs_the_draft_most_drafts_agree_on_and_says_so():
    replies = [
        step("y = 3\nfinal_answer(1040)"),  # worked out in the model's head
        step("final_answer(17 * 60)"),
        step("seconds = 17 * 60\nfinal_answer(seconds)"),
    ]
    model = GrammarScriptedModel(replies, model_id=TINY_ID)
    agent = agent_for(model)
    assert agent.run("A lap takes 17 minutes. Give that in seconds.") == 1020
    action = agent.memory.steps[-1]
    assert action.code_action == "final_answer(17 * 60)"
    assert action.model_output == replies[1]
    assert "3 written" in action.observations and "guessed 1040" in action.observations
    assert "draft 2 runs" in action.observations
    with pytest.raises(AgentExecutionError):  # the first draft's variable did not stay
        agent.executor("y")
    first, second, third = model.call_kwargs
    assert first["temperature"] == 0 and "seed" not in first
    assert second["temperature"] == third["temperature"] == SmallModelProfile().draft_temperature
    assert (second["seed"], third["seed"]) == (1, 2)


def test_two_drafts_that_agree_end_the_vote():
    model = GrammarScriptedModel(
        [step("final_answer(6 * 7)")] * 2 + ["never read"], model_id=TINY_ID
    )
    agent = agent_for(model)
    assert agent.run("What is 6 times 7?") == 42
    assert len(model.calls) == 2
    assert "2 written (2 answered 42); draft 1 runs" in agent.memory.steps[-1].observations


def test_when_no_draft_answers_the_step_runs_a_look_and_the_next_step_answers():
    replies = [
        step("final_answer(undefined_name)"),
        step('words = "one two three".split()\nprint("words:", len(words))'),
        step("final_answer(1 +* 2)"),
        step("final_answer(3)"),  # step 2, draft 1: the observation shows 3
        step("final_answer(3)"),
    ]
    model = GrammarScriptedModel(replies, model_id=TINY_ID)
    agent = agent_for(model)
    assert agent.run("How many words are in 'one two three'?") == 3
    look, answer = agent.memory.steps[1], agent.memory.steps[2]
    assert look.code_action.startswith("words =") and "words: 3" in look.observations
    assert "1 failed (NameError: name 'undefined_name' is not defined)" in look.observations
    assert "1 ran without a final answer" in look.observations
    assert answer.is_final_answer and "guess" not in answer.observations


def test_only_the_first_draft_streams():
    replies = [step("final_answer(9)"), step("final_answer(3 * 3)"), step("final_answer(3 ** 2)")]
    model = GrammarScriptedModel(replies, model_id=TINY_ID)
    agent = agent_for(model, stream_outputs=True)
    events = list(agent.run("What is 3 squared?", stream=True))
    streamed = "".join(e.content or "" for e in events if isinstance(e, ChatMessageStreamDelta))
    assert streamed.strip() == replies[0].removesuffix("</code>").strip()  # cut at the stop
    assert agent.memory.steps[-1].model_output == replies[1]


def test_no_drafts_for_a_backend_without_a_grammar_or_with_one_draft():
    plain = ScriptedModel([step("final_answer(1040)")], model_id=TINY_ID)
    assert agent_for(plain).run("A lap takes 17 minutes. Give that in seconds.") == 1040
    single = GrammarScriptedModel([step("final_answer(1040)")], model_id=TINY_ID)
    agent = agent_for(single, small_model=SmallModelProfile(drafts=1))
    assert agent.run("A lap takes 17 minutes. Give that in seconds.") == 1040
    assert "drafts" not in agent.memory.steps[-1].observations


def test_ballot_note_counts_what_the_drafts_gave():
    drafts = [draft(FAILED), draft(ANSWER, 4), draft(ANSWER, 4)]
    drafts[0].detail = "NameError: name 'x' is not defined"
    note = Ballot(drafts[1], drafts).note
    assert note.startswith("Note: drafts of this step: 3 written")
    assert "1 failed (NameError: name 'x' is not defined)" in note and "2 answered 4" in note
    assert Ballot(drafts[1], drafts[1:2]).note == ""


# -- the thought's expression ------------------------------------------------------------


@pytest.mark.parametrize(
    ("thought", "expression"),
    [
        ('"kayak seats".count("a") counts each \'a\' in it.', '"kayak seats".count("a")'),
        ("12% of 45 is 12 / 100 * 45.", "12 / 100 * 45"),
        ("1 yard is 3 feet, so 6 yards is 6 * 3 feet.", "6 * 3"),
        ("The mean of 4, 9 and 14 is (4 + 9 + 14) / 3.", "(4 + 9 + 14) / 3"),
        ("len('giraffe') is its number of characters.", "len('giraffe')"),
        ("[::-1] makes 'open sea' upper case.", None),
        ("upper() makes it upper case.", None),  # no value to call it on
        ("The answer is -5.", None),  # a number is no working
        ("I count the letters of word in 'aeiou'.", None),  # `word` is no known name
    ],
)
def test_thought_expression(thought, expression):
    assert thought_expression(f"Thought: {thought}\n<code>\nx\n</code>") == expression


def test_a_failing_draft_runs_the_expression_its_thought_spells_out():
    replies = [
        step("final_answer(count(1))").replace("work it out.", '"banana".count("a") counts it.'),
        step("final_answer(len(banana))"),
        step("final_answer(3)"),  # a number the task does not show
    ]
    model = GrammarScriptedModel(replies, model_id=TINY_ID)
    agent = agent_for(model)
    assert agent.run("How many times does 'a' occur in 'banana'?") == 3
    action = agent.memory.steps[-1]
    assert action.code_action == 'final_answer("banana".count("a"))'
    assert action.model_output == replies[0]  # what the model wrote stays as written
    assert "the expression its thought spells out runs instead" in action.observations


def test_a_draft_that_cost_the_executor_its_variables_says_so():
    lost = []

    def crashing(code: str):
        raise AgentExecutionError("Code execution failed: the worker died", state_lost=True)

    judge = DraftJudge(
        lambda text: "final_answer(1 + 1)", Repair, crashing, "", lambda: lost.append(1)
    )
    result = judge(ChatMessage(role="assistant", content=step("final_answer(1 + 1)")))
    assert result.outcome == FAILED and result.detail == "the worker died" and lost == [1]
