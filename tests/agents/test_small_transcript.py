"""The small model's view of memory: worked examples picked per task, and the short
transcript (scripted model, real local executor)."""

from __future__ import annotations

from agents import CodeAgent, ScriptedModel
from agents.memory.steps import ActionStep, TaskStep
from agents.small_model.examples import Category, WorkedExample, example_bank, pick_examples
from agents.small_model.transcript import small_transcript

TINY_ID = "SmolLM2-135M-Instruct.Q4_1.gguf"
TAGS = ("<code>", "</code>")


def texts(messages) -> list[str]:
    """The text of chat messages, or of the message dicts a scripted model received."""
    found = []
    for message in messages:
        if not isinstance(message, dict):
            found.append(message.text)
        elif isinstance(message["content"], str):
            found.append(message["content"])
        else:
            found.append("".join(block.get("text", "") for block in message["content"]))
    return found


# -- picking examples ----------------------------------------------------------------------


def test_examples_of_the_tasks_operation_come_first_the_closest_last():
    picked = pick_examples("Convert 8 kilograms to grams.")
    assert len(picked) == 3
    assert {example.category for example in picked} == {"length, weight and volume"}
    assert "grams" in picked[-1].task


def test_the_operation_counts_more_than_shared_words():
    bank = (
        WorkedExample("How many days are in 3 weeks?", "7 a week.", "final_answer(3 * 7)", "time"),
        WorkedExample("Is 'abba' the same reversed?", "Slice.", 'final_answer("yes")', "text"),
    )
    categories = (
        Category("time", ("days?\\b", "weeks?\\b")),
        Category("text", ("revers", "backward"), text=True),
    )
    # Shares "how", "many", "days" with the first example, but asks for a reversal.
    task = "How many days backwards is 'stressed' reversed?"
    assert pick_examples(task, 1, bank, categories)[0] is bank[1]
    assert pick_examples("How many days are in 9 weeks?", 1, bank, categories)[0] is bank[0]


def test_unless_rules_a_category_out_and_quoted_text_favours_text_operations():
    time = Category("time", ("days?\\b",), unless="\\d{4}-\\d{2}-\\d{2}")
    assert time.score("how many days in 2 weeks", quotes=False) == 1
    assert time.score("how many days from 2024-01-01 to 2024-02-01", quotes=False) == 0
    text = Category("text", ("letter",), text=True)
    assert text.score("count the letter in", quotes=True) == 2
    assert text.score("count the letter in", quotes=False) == 1
    assert text.score("add two numbers", quotes=True) == 0


def test_quoted_data_does_not_steer_the_choice():
    bank = (
        WorkedExample("Reverse the text 'abc'.", "Slice.", 'final_answer("abc"[::-1])'),
        WorkedExample("Convert 3 days to hours.", "Times 24.", "final_answer(3 * 24)"),
    )
    # "hours" and "days" only appear inside the quoted text: not a conversion task.
    assert pick_examples("Reverse the text 'days and hours'.", 1, bank)[0] is bank[0]


def test_file_examples_only_for_a_task_about_a_file():
    plain = pick_examples("How many lines of poetry did Keats write?", 3)
    assert not any("attached" in example.task for example in plain)
    attached = pick_examples("Count the rows of the attached todo-list file.", 1)
    assert "attached" in attached[0].task and "open(" in attached[0].code


def test_every_packaged_example_runs_with_the_default_imports_and_ends_with_the_answer():
    import ast

    from agents.executors.python_runner import BASE_AUTHORIZED_IMPORTS
    from tools.convert_units import convert_units

    for example in example_bank():
        tree = ast.parse(example.code)
        last = tree.body[-1]
        assert isinstance(last, ast.Expr) and ast.unparse(last).startswith("final_answer("), example
        assert "\n" not in example.thought
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert imported <= set(BASE_AUTHORIZED_IMPORTS), example
        if "open(" not in example.code:  # the file examples name files that do not exist
            answers = []
            exec(example.code, {"final_answer": answers.append, "convert_units": convert_units})
            assert len(answers) == 1 and answers[0] is not None, example


def test_examples_calling_a_tool_only_for_an_agent_that_has_it_and_then_first():
    task = "How many kilometers is a 26 mile run?"
    without = pick_examples(task, 3)
    assert without and not any("convert_units" in e.code or e.tool for e in without)
    assert pick_examples(task, 3, tools=["web_search"]) == without
    with_tool = pick_examples(task, 3, tools=["convert_units", "web_search"])
    assert [e.tool for e in with_tool] == ["convert_units"] * 3
    assert {e.category for e in with_tool} == {e.category for e in without}
    # A task of another kind is not steered to the tool.
    sums = pick_examples("What is 18 plus 25?", 3, tools=["convert_units"])
    assert not any(e.tool for e in sums)


def test_every_tool_example_calls_its_tool():
    import ast

    with_tools = [e for e in example_bank() if e.tool]
    assert with_tools
    for example in with_tools:
        called = {
            node.func.id
            for node in ast.walk(ast.parse(example.code))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert example.tool in called, example


def test_nothing_to_pick_from():
    assert pick_examples("What is 2 + 2?", 0) == []
    assert pick_examples("What is 2 + 2?", 3, ()) == []


# -- the transcript ------------------------------------------------------------------------


def test_transcript_is_examples_then_the_task_then_each_step_and_its_observation():
    step = ActionStep(step_number=1)
    step.model_output = "Thought: look.\n<code>\nprint(2 + 2)\n</code>"
    step.code_action = "print(2 + 2)"
    step.observations = "Execution logs:\n4\n"
    messages = small_transcript("SYSTEM", [TaskStep("What is 2 + 2?"), step], TAGS, examples=2)
    roles = [m.role for m in messages]
    assert roles == ["system", *["user", "assistant"] * 3, "user"]
    assert texts(messages)[0] == "SYSTEM" and texts(messages)[5] == "What is 2 + 2?"
    assert texts(messages)[-1] == "Observation: 4"
    assert "Calling tools" not in "".join(texts(messages))


def test_error_is_one_short_line_and_the_repaired_code_is_shown():
    step = ActionStep(step_number=1)
    step.model_output = "Thought: t.\n<code>\nx\n</code>"
    step.code_action = "final_answer(x)"
    from agents.errors import AgentExecutionError

    step.error = AgentExecutionError("Code execution failed: NameError: name 'x' is not defined")
    messages = small_transcript("S", [TaskStep("What is x?"), step], TAGS, examples=0)
    assert texts(messages)[-2] == "Thought: t.\n<code>\nfinal_answer(x)\n</code>"
    assert texts(messages)[-1] == "Error: NameError: name 'x' is not defined\nFix the code."


def test_earlier_turns_keep_only_task_and_answering_step():
    model = ScriptedModel(
        [
            "Thought: a.\n<code>\nx = 1\n</code>",
            "Thought: b.\n<code>\nfinal_answer(10)\n</code>",
            "Thought: c.\n<code>\nfinal_answer(20)\n</code>",
        ],
        model_id=TINY_ID,
    )
    agent = CodeAgent([], model, executor_type="local", max_steps=3)
    assert agent.run("What is ten?") == 10
    assert agent.run("And twice that?", reset=False) == 20
    seen = texts(model.calls[-1])
    turn = seen.index("What is ten?")
    assert seen[turn + 1] == "Thought: b.\n<code>\nfinal_answer(10)\n</code>"
    assert "Thought: a." not in "".join(seen)
    assert seen[-1] == "And twice that?"
    agent.close()


def test_the_agents_tools_reach_the_worked_examples():
    from tools.convert_units import ConvertUnitsTool

    task = "Give 40 kilograms in pounds."
    answer = "Thought: t.\n<code>\nfinal_answer(88.18)\n</code>"
    seen = {}
    for tools in ([], [ConvertUnitsTool()]):
        model = ScriptedModel([answer], model_id=TINY_ID)
        agent = CodeAgent(tools, model, executor_type="local", max_steps=1)
        agent.run(task)
        seen[bool(tools)] = "".join(texts(model.calls[0]))
        agent.close()
    assert "convert_units(" not in seen[False].split(task)[0]
    assert 'convert_units(3, "pound", "ounce")' in seen[True]
