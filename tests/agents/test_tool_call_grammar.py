"""The JSON tool-call grammar of a ToolCallingAgent on a small model: the schema built from the
tools (pure), the call options the agent sends (scripted), and real constrained calls on the
bundled SmolLM2 through llama.cpp (slow)."""

from __future__ import annotations

import importlib.util
import json

import pytest

from agents import ScriptedModel, ToolCallingAgent
from agents.memory.steps import ActionStep
from agents.small_model.grammar import tool_call_schema
from agents.small_model.profile import SmallModelProfile
from tools import FinalAnswerTool, tool

TINY_ID = "SmolLM2-135M-Instruct.Q4_1.gguf"
CALL = '{"name": "final_answer", "arguments": {"answer": "done"}}'


@tool
def add_numbers(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


@tool
def shout(text: str, times: int | None = None) -> str:
    """Repeat a text in capitals.

    Args:
        text: What to shout.
        times: How often (default once).
    """
    return " ".join([text.upper()] * (times or 1))


class GrammarScriptedModel(ScriptedModel):
    """A scripted model that says it can follow a grammar (and records the one it gets)."""

    supports_grammar = True


def schemas(*tools) -> list[dict]:
    return [t.to_tool_schema() for t in tools]


# -- the schema built from the tools ------------------------------------------------------


def test_schema_has_one_alternative_per_tool_with_its_arguments():
    schema = tool_call_schema(schemas(add_numbers, shout, FinalAnswerTool()), 40)
    calls = {alt["properties"]["name"]["const"]: alt for alt in schema["anyOf"]}
    assert set(calls) == {"add_numbers", "shout", "final_answer"}
    for alt in calls.values():
        assert list(alt["properties"]) == ["name", "arguments"]  # the tool is chosen first
        assert alt["additionalProperties"] is False
    add_args = calls["add_numbers"]["properties"]["arguments"]
    assert add_args["properties"] == {"a": {"type": "integer"}, "b": {"type": "integer"}}
    assert sorted(add_args["required"]) == ["a", "b"]
    shout_args = calls["shout"]["properties"]["arguments"]
    assert shout_args["required"] == ["text"]
    assert shout_args["properties"]["text"]["maxLength"] == 40
    assert shout_args["properties"]["text"]["minLength"] == 1


def test_a_single_tool_needs_no_alternatives_and_no_tools_is_refused():
    schema = tool_call_schema(schemas(FinalAnswerTool()))
    assert schema["properties"]["name"] == {"const": "final_answer"}
    assert schema["properties"]["arguments"]["properties"]["answer"] == {"type": "string"}
    with pytest.raises(ValueError, match="at least one tool"):
        tool_call_schema([])
    with pytest.raises(ValueError, match="no function name"):
        tool_call_schema([{"type": "function", "function": {"parameters": {}}}])


@pytest.mark.parametrize(
    "call, valid",
    [
        ({"name": "add_numbers", "arguments": {"a": 1, "b": 2}}, True),
        ({"name": "shout", "arguments": {"text": "hi"}}, True),
        ({"name": "shout", "arguments": {"text": "hi", "times": 2}}, True),
        ({"name": "final_answer", "arguments": {"answer": "3"}}, True),
        ({"name": "multiply", "arguments": {"a": 1, "b": 2}}, False),  # not a tool
        ({"name": "add_numbers", "arguments": {"a": 1}}, False),  # missing argument
        ({"name": "add_numbers", "arguments": {"a": 1, "b": 2, "c": 3}}, False),  # extra one
        ({"name": "add_numbers", "arguments": {"a": "one", "b": 2}}, False),  # wrong type
        ({"name": "shout", "arguments": {"text": "x" * 41}}, False),  # too long
        ({"name": "final_answer", "arguments": {"answer": ""}}, False),  # empty
        ({"name": "final_answer"}, False),  # no arguments
    ],
)
def test_schema_accepts_exactly_the_calls_the_tools_take(call, valid):
    jsonschema = pytest.importorskip("jsonschema")
    schema = tool_call_schema(schemas(add_numbers, shout, FinalAnswerTool()), 40)
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(call))
    assert (not errors) is valid, errors


def test_llama_cpp_grammar_from_the_schema_keeps_strings_valid_json():
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    from agents.models.llama_cpp import json_schema_gbnf

    grammar = json_schema_gbnf(tool_call_schema(schemas(add_numbers, FinalAnswerTool()), 20))
    assert '"\\"add_numbers\\""' in grammar and '"\\"final_answer\\""' in grammar
    # JSON strings hold no raw control characters (a raw newline makes json.loads fail).
    char_rule = next(line for line in grammar.splitlines() if line.startswith("char ::="))
    assert "\\x00-\\x1f" in char_rule


# -- what the agent sends ------------------------------------------------------------------


def test_small_model_tool_step_gets_the_schema_of_its_tools_and_a_token_cap():
    model = GrammarScriptedModel([CALL], model_id=TINY_ID)
    agent = ToolCallingAgent([add_numbers], model, max_steps=2)
    assert agent.run("Say done.") == "done"
    call = model.call_kwargs[0]
    profile = SmallModelProfile()
    assert call["max_tokens"] == profile.tool_call_tokens
    expected = tool_call_schema(schemas(add_numbers, FinalAnswerTool()), profile.max_argument_chars)
    assert call["grammar"] == expected


def test_small_model_last_answer_after_the_steps_run_out_is_capped_too():
    call = '{"name": "add_numbers", "arguments": {"a": 1, "b": 2}}'
    model = GrammarScriptedModel([call, "It is 3."], model_id=TINY_ID)
    agent = ToolCallingAgent([add_numbers], model, max_steps=1)
    assert agent.run("What is 1 + 2?") == "It is 3."
    last = model.call_kwargs[-1]
    assert last["max_tokens"] == SmallModelProfile().tool_call_tokens
    assert "grammar" not in last  # the last answer is free text


@pytest.mark.parametrize(
    "model, kwargs",
    [
        (ScriptedModel([CALL], model_id=TINY_ID), {}),  # the backend follows no grammar
        (GrammarScriptedModel([CALL], model_id="big-model"), {}),  # not a tiny model
        (GrammarScriptedModel([CALL], model_id=TINY_ID), {"small_model": False}),
        (GrammarScriptedModel([CALL], model_id=TINY_ID), {"grammar": 'root ::= "x"'}),
    ],
)
def test_no_tool_grammar_without_a_grammar_backend_the_profile_or_when_the_user_set_one(
    model, kwargs
):
    agent = ToolCallingAgent([add_numbers], model, max_steps=2, **kwargs)
    assert agent.run("Say done.") == "done"
    assert model.call_kwargs[0].get("grammar") == kwargs.get("grammar")


# -- the real bundled model (llama.cpp) ----------------------------------------------------


@pytest.fixture(scope="module")
def bundled_model():
    # Not imported here: the model sets llama.cpp's thread wait policy before loading it.
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    from agents.models.spec import default_model

    return default_model(n_ctx=2048, temperature=0)


def first_step(agent: ToolCallingAgent, task: str) -> ActionStep:
    """Run the agent until its first action step is recorded, then stop the run."""
    events = agent.run(task, stream=True, max_steps=2)
    try:
        return next(e for e in events if isinstance(e, ActionStep))
    finally:
        events.close()


@pytest.mark.slow
@pytest.mark.parametrize(
    "task", ["What is 17 + 25? Use the add_numbers tool.", "Tell me a long story about a dragon."]
)
def test_bundled_model_writes_a_valid_call_of_one_of_its_tools(bundled_model, task):
    """Even a request for prose gets one JSON call, of a real tool, with its arguments."""
    agent = ToolCallingAgent([add_numbers], bundled_model)
    assert isinstance(agent.profile, SmallModelProfile)
    step = first_step(agent, task)
    call = json.loads(step.model_output)  # the whole answer is one strict JSON object
    assert set(call) == {"name", "arguments"}, step.model_output
    tools = {"add_numbers": add_numbers, "final_answer": agent.tools["final_answer"]}
    assert call["name"] in tools
    tools[call["name"]].validate_arguments(call["arguments"])
    assert step.error is None, step.error
    assert [c.name for c in step.tool_calls] == [call["name"]]
