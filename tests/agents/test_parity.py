"""smolagents scripts, imports changed only: names, agent attributes and methods, prompts.

Each test is written the way the smolagents docs (v1.17 reference, guided tour, and the
1.2x API) write it, and asserts what those docs say happens.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import yaml

import agents
import agents.models
from agents import (
    ActionStep,
    AgentError,
    AgentExecutionError,
    AgentLogger,
    AgentMemory,
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    CodeAgent,
    FinalAnswerPromptTemplate,
    LogLevel,
    ManagedAgentPromptTemplate,
    MemoryStep,
    Model,
    Monitor,
    PlanningPromptTemplate,
    PromptTemplates,
    RunResult,
    ScriptedModel,
    TaskStep,
    TokenUsage,
    ToolCallingAgent,
)
from agents.errors import AgentConfigError
from tools import tool

NAMES_FROM_AGENTS = [
    "ChatMessageToolCallFunction", "ChatMessageToolCall", "ChatMessageStreamDelta",
    "ChatMessageToolCallStreamDelta", "PromptTemplates", "PlanningPromptTemplate",
    "ManagedAgentPromptTemplate", "FinalAnswerPromptTemplate", "AgentLogger", "LogLevel",
    "Monitor", "Timing", "TokenUsage", "MemoryStep", "RunResult", "OpenAIModel",
    "AzureOpenAIModel", "OpenAIServerModel", "AzureOpenAIServerModel", "VLLMModel",
    "AmazonBedrockModel", "LiteLLMRouterModel", "populate_template",
]  # fmt: skip
NAMES_FROM_MODELS = [
    "ChatMessage", "ChatMessageToolCallFunction", "ChatMessageToolCall",
    "ChatMessageStreamDelta", "ChatMessageToolCallStreamDelta", "MessageRole", "Model",
    "TokenUsage", "OpenAIModel", "InferenceClientModel", "LiteLLMModel", "TransformersModel",
]  # fmt: skip


@tool
def get_weather(city: str) -> str:
    """Gives the weather in a city.

    Args:
        city: The city.
    """
    return f"Sunny in {city}"


def code(*lines: str) -> str:
    return "Thought: next.\n<code>\n" + "\n".join(lines) + "\n</code>"


class ToolCallModel(Model):
    """A custom model as smolagents users write one: it answers with OpenAI-style dicts."""

    def __init__(self, calls: list[tuple[str, dict]]):
        super().__init__(model_id="custom")
        self.calls = list(calls)

    def generate(self, messages, stop_sequences=None, response_format=None,
                 tools_to_call_from=None, **kwargs):  # fmt: skip
        name, arguments = self.calls.pop(0)
        call = {"id": f"call_{len(self.calls)}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)}}  # fmt: skip
        return ChatMessage(role="assistant", content="", tool_calls=[call],
                           token_usage=TokenUsage(input_tokens=10, output_tokens=3))  # fmt: skip


# -- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES_FROM_AGENTS)
def test_names_import_from_agents(name):
    assert getattr(agents, name) is not None


@pytest.mark.parametrize("name", NAMES_FROM_MODELS)
def test_names_import_from_agents_models(name):
    assert getattr(agents.models, name) is getattr(agents, name)


def test_openai_model_is_the_current_name():
    model = agents.OpenAIModel(model_id="local", api_base="http://127.0.0.1:9/v1")
    assert isinstance(model, agents.OpenAIServerModel)
    assert agents.AzureOpenAIModel is agents.AzureOpenAIServerModel


def test_chat_message_accepts_openai_tool_call_dicts():
    message = ChatMessage(
        role="assistant",
        content="Let me check.",
        tool_calls=[{"id": "c1", "type": "function",
                     "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
    )  # fmt: skip
    call = message.tool_calls[0]
    assert isinstance(call, ChatMessageToolCall)
    assert isinstance(call.function, ChatMessageToolCallFunction)
    assert (call.id, call.function.name, call.function.arguments) == (
        "c1", "get_weather", {"city": "Paris"}
    )  # fmt: skip
    markdown = message.render_as_markdown()
    assert markdown.splitlines()[0] == "Let me check."
    assert json.loads(markdown.splitlines()[1]) == {
        "tool": "get_weather", "arguments": {"city": "Paris"}
    }  # fmt: skip


def test_tool_calling_agent_with_a_custom_model_returning_dicts():
    model = ToolCallModel([("get_weather", {"city": "Paris"}), ("final_answer", {"answer": "ok"})])
    agent = ToolCallingAgent(tools=[get_weather], model=model, verbosity_level=LogLevel.OFF)
    assert agent.run("Weather in Paris?") == "ok"
    first = agent.memory.steps[1]
    assert first.observations == "Sunny in Paris"


# -- agent attributes and methods ----------------------------------------------------------------


def test_system_prompt_is_read_only_and_lists_the_tools():
    agent = CodeAgent(tools=[get_weather], model=ScriptedModel([]), verbosity_level=-1)
    assert "def get_weather(city: str) -> str" in agent.system_prompt
    agent.prompt_templates["system_prompt"] += "\nAlways answer in French."
    assert agent.system_prompt.endswith("Always answer in French.")
    with pytest.raises(AttributeError, match="prompt_templates"):
        agent.system_prompt = "something else"


@pytest.mark.parametrize("executor_type", ["local", "sandbox"])
def test_python_executor_state_holds_the_variables(executor_type):
    model = ScriptedModel([code("x = 6 * 7", "names = ['a', 'b']", "import math"),
                           code("final_answer(x)")])  # fmt: skip
    agent = CodeAgent(tools=[], model=model, executor_type=executor_type, verbosity_level=-1)
    try:
        assert agent.run("Compute.") == 42
        assert agent.python_executor is agent.executor
        state = agent.python_executor.state
        assert state["x"] == 42 and state["names"] == ["a", "b"]
        assert "math" not in state and "final_answer" not in state
    finally:
        agent.close()


def test_monitor_totals_the_tokens_of_the_run():
    model = ScriptedModel([code("print(1)"), code("final_answer(2)")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1)
    agent.run("x")
    usage = agent.monitor.get_total_token_counts()
    steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    assert usage.input_tokens == sum(s.token_usage.input_tokens for s in steps) > 0
    assert usage.output_tokens == sum(s.token_usage.output_tokens for s in steps) > 0
    assert agent.monitor.total_input_token_count == usage.input_tokens
    assert len(agent.monitor.step_durations) == 2
    assert agent.model.last_input_token_count == steps[-1].token_usage.input_tokens


def test_monitor_as_a_standalone_step_callback():
    monitor = Monitor(tracked_model=None, logger=None)
    model = ScriptedModel([code("final_answer(1)")])
    agent = CodeAgent(tools=[], model=model, step_callbacks=[monitor.update_metrics],
                      verbosity_level=-1)  # fmt: skip
    agent.run("x")
    assert monitor.get_total_token_counts().total_tokens == agent.memory.token_usage().total_tokens


def test_step_by_step_loop_from_the_docs():
    # smolagents' "run the agent step by step" pattern.
    model = ScriptedModel([code("total = 2 + 3", "print(total)"), code("final_answer(total)")])
    agent = CodeAgent(tools=[], model=model, executor_type="local", verbosity_level=-1)
    agent.memory.steps.append(TaskStep(task="What is 2 + 3?", task_images=[]))
    final_answer, step_number = None, 1
    while final_answer is None and step_number <= 5:
        memory_step = ActionStep(step_number=step_number, observations_images=[])
        final_answer = agent.step(memory_step)
        agent.memory.steps.append(memory_step)
        step_number += 1
    assert final_answer == 5 and step_number == 3
    assert "5" in agent.memory.steps[1].observations


def test_provide_final_answer_answers_from_memory():
    model = ScriptedModel([code("print('the capital is Paris')"), "Paris, from memory.", "Paris."])
    agent = CodeAgent(tools=[], model=model, executor_type="local", verbosity_level=-1)
    assert agent.run("Capital of France?", max_steps=1) == "Paris, from memory."
    answer = agent.provide_final_answer("Capital of France?")
    assert isinstance(answer, ChatMessage) and answer.content == "Paris."
    sent = " ".join(m["content"][0]["text"] for m in model.calls[-1] if m["content"])
    assert "the capital is Paris" in sent and "Capital of France?" in sent


def test_process_tool_calls_records_the_calls():
    agent = ToolCallingAgent(tools=[get_weather], model=ScriptedModel([]), verbosity_level=-1)
    message = ChatMessage(role="assistant", content="", tool_calls=[
        {"id": "a", "type": "function", "function": {"name": "get_weather",
                                                    "arguments": '{"city": "Oslo"}'}}])  # fmt: skip
    step = ActionStep(step_number=1)
    events = list(agent.process_tool_calls(message, step))
    outputs = [e for e in events if type(e).__name__ == "ToolOutput"]
    assert outputs[0].output == "Sunny in Oslo"
    assert step.tool_calls[0].name == "get_weather" and step.observations == "Sunny in Oslo"


def test_run_result_messages_and_dict():
    model = ScriptedModel([code("final_answer('done')")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=-1, return_full_result=True)
    result = agent.run("x")
    assert isinstance(result, RunResult) and result.output == "done"
    assert result.state == "success"
    assert result.messages == result.steps and result.messages
    data = result.dict()
    assert json.loads(json.dumps(data))["output"] == "done"
    assert data["token_usage"]["total_tokens"] == result.token_usage.total_tokens > 0


def test_memory_replay_shows_task_output_code_observations_errors_and_tokens():
    model = ScriptedModel([code("print(1 / 0)"), code("print('fine')", "final_answer(7)")])
    agent = CodeAgent(tools=[], model=model, executor_type="local", verbosity_level=-1)
    agent.run("Divide things.")
    out = io.StringIO()
    agent.memory.replay(AgentLogger(level=LogLevel.INFO, stream=out))
    text = out.getvalue()
    for expected in ("Divide things.", "Thought: next.", "print(1 / 0)", "ZeroDivisionError",
                     "fine", "Final answer: 7", "Input tokens:", "Output tokens:"):  # fmt: skip
        assert expected in text, expected
    assert text.index("print(1 / 0)") < text.index("final_answer(7)")


def test_agent_replay_and_logs(capsys):
    model = ScriptedModel([code("final_answer(3)")])
    agent = CodeAgent(tools=[], model=model, verbosity_level=LogLevel.OFF)
    agent.run("Three?")
    agent.replay()
    assert "Three?" in capsys.readouterr().out
    assert isinstance(agent.logs[0], MemoryStep) and agent.logs[1:] == agent.memory.steps


def test_agent_logger_methods_write_at_their_level():
    out = io.StringIO()
    logger = AgentLogger(level=LogLevel.INFO, stream=out)
    logger.log("visible")
    logger.log("hidden", level=LogLevel.DEBUG)
    logger.log_markdown("body", title="Title")
    logger.log_code("Code", "x = 1")
    logger.log_error("bad")
    text = out.getvalue()
    assert "visible" in text and "hidden" not in text
    assert "Title\nbody" in text and "  x = 1" in text and "Error: bad" in text


def test_errors_accept_a_logger_argument():
    logger = AgentLogger(level=LogLevel.INFO)
    error = AgentError("it broke", logger)
    assert error.message == "it broke" and str(error) == "it broke"
    execution = AgentExecutionError("code broke", logger)
    assert execution.logs == "" and execution.message == "code broke"


def test_memory_classes_are_the_agents():
    assert isinstance(CodeAgent(tools=[], model=ScriptedModel([])).memory, AgentMemory)


# -- prompt templates --------------------------------------------------------------------------

SMOLAGENTS_STYLE_YAML = """
system_prompt: |-
  You solve tasks with code between {{code_block_opening_tag}} and {{code_block_closing_tag}}.
  {%- for tool in tools.values() %}
  - {{ tool.name }}: {{ tool.description }}
      Takes inputs: {{tool.inputs}}
      Returns an output of type: {{tool.output_type}}
  {%- endfor %}
  {%- if managed_agents and managed_agents.values() | list %}
  Team:
  {%- for agent in managed_agents.values() %}
  - {{ agent.name }}: {{ agent.description }}
  {%- endfor %}
  {%- endif %}
  Imports: {{authorized_imports}}
  {%- if custom_instructions %}
  {{custom_instructions}}
  {%- endif %}
planning:
  initial_plan: |-
    Plan for {{task}} with {% for tool in tools.values() %}{{ tool.name }} {% endfor %}
  update_plan_pre_messages: |-
    Task: {{task}}
  update_plan_post_messages: |-
    {{remaining_steps}} steps left for {{task}}.
managed_agent:
  task: |-
    You're {{name}}. Task: {{task}}
  report: |-
    {{name}} says: {{final_answer}}
final_answer:
  pre_messages: |-
    Answer now.
  post_messages: |-
    Task: {{task}}
"""


def test_a_smolagents_prompt_yaml_works_unchanged():
    templates = yaml.safe_load(SMOLAGENTS_STYLE_YAML)
    helper = CodeAgent(tools=[], model=ScriptedModel([]), name="helper",
                       description="Looks things up.")  # fmt: skip
    model = ScriptedModel([code("final_answer('sunny')")])
    agent = CodeAgent(tools=[get_weather], model=model, prompt_templates=templates,
                      managed_agents=[helper], instructions="Be brief.", verbosity_level=-1,
                      additional_authorized_imports=["numpy"])  # fmt: skip
    prompt = agent.system_prompt
    assert "between <code> and </code>" in prompt
    assert "- get_weather: Gives the weather in a city." in prompt
    assert "Takes inputs: {'city': {'type': 'string'" in prompt
    assert "- helper: Looks things up." in prompt
    assert "numpy" in prompt and prompt.endswith("Be brief.")
    assert agent.run("Weather?") == "sunny"
    first_message = agent.write_memory_to_messages()[0]
    assert first_message.text == prompt


def test_prompt_templates_typed_dicts_build_a_valid_override():
    templates = PromptTemplates(
        system_prompt="Tools: {{ tools | length }}. Tags {{code_block_opening_tag}}.",
        planning=PlanningPromptTemplate(
            initial_plan="{{task}}",
            update_plan_pre_messages="{{task}}",
            update_plan_post_messages="{{task}}",
        ),  # fmt: skip
        managed_agent=ManagedAgentPromptTemplate(task="{{task}}", report="{{final_answer}}"),
        final_answer=FinalAnswerPromptTemplate(pre_messages="", post_messages="{{task}}"),
    )
    agent = CodeAgent(tools=[get_weather], model=ScriptedModel([]), prompt_templates=templates)
    assert agent.system_prompt == "Tools: 2. Tags <code>."


def test_a_missing_template_variable_is_a_clear_error():
    templates = {"system_prompt": "Hello {{ user_name }}, tools: {{ tools | length }}"}
    with pytest.raises(AgentConfigError, match="user_name") as caught:
        CodeAgent(tools=[], model=ScriptedModel([]), prompt_templates=templates)
    assert "tools" in str(caught.value)  # the message lists what is available


def test_planning_and_final_answer_templates_get_smolagents_variables():
    templates = yaml.safe_load(SMOLAGENTS_STYLE_YAML)
    model = ScriptedModel(["the plan", code("print('working')"), "my best answer"])
    agent = CodeAgent(tools=[get_weather], model=model, prompt_templates=templates,
                      planning_interval=5, max_steps=1, verbosity_level=-1)  # fmt: skip
    assert agent.run("Find it") == "my best answer"
    plan = next(s for s in agent.memory.steps if type(s).__name__ == "PlanningStep")
    assert plan.model_input_messages[0].text.startswith(
        "Plan for Find it with get_weather final_answer"
    )


# -- final answer checks, code block tags, grammar -------------------------------------------------


def test_final_answer_checks_take_memory_and_optionally_the_agent():
    seen = {}

    def is_positive(final_answer, memory):
        seen["memory"] = memory
        return final_answer > 0

    def mentions_task(final_answer, memory, agent=None):
        seen["agent"] = agent
        return agent is not None and agent.task == "Give a number."

    model = ScriptedModel([code("final_answer(-1)"), code("final_answer(4)")])
    agent = CodeAgent(tools=[], model=model, final_answer_checks=[is_positive, mentions_task],
                      verbosity_level=-1)  # fmt: skip
    assert agent.run("Give a number.") == 4
    assert seen["memory"] is agent.memory and seen["agent"] is agent
    first = agent.memory.steps[1]
    assert "is_positive" in first.error.message


def test_markdown_code_block_tags():
    model = ScriptedModel(["Thought: compute.\n```python\nfinal_answer(2 ** 5)\n```"])
    agent = CodeAgent(tools=[], model=model, code_block_tags="markdown", verbosity_level=-1)
    assert agent.code_block_tags == ("```python", "```")
    assert "```python" in agent.system_prompt
    assert agent.run("2 to the 5th?") == 32
    assert "```" not in model.call_kwargs[0]["stop_sequences"]


def test_custom_code_block_tags():
    model = ScriptedModel(["Thought: compute.\n<python>\nfinal_answer(3 * 3)\n</python>"])
    agent = CodeAgent(tools=[], model=model, code_block_tags=("<python>", "</python>"),
                      verbosity_level=-1)  # fmt: skip
    assert "<python>" in agent.system_prompt and "<code>" not in agent.system_prompt
    assert agent.run("3 times 3?") == 9
    assert "</python>" in model.call_kwargs[0]["stop_sequences"]


def test_bad_code_block_tags_are_a_clear_error():
    with pytest.raises(AgentConfigError, match="code_block_tags"):
        CodeAgent(tools=[], model=ScriptedModel([]), code_block_tags="html")


class GrammarScriptedModel(ScriptedModel):
    supports_grammar = True


def test_grammar_needs_a_backend_that_can_use_it():
    with pytest.raises(AgentConfigError, match="grammar"):
        CodeAgent(tools=[], model=ScriptedModel([]), grammar={"type": "regex", "value": ".*"})
    model = GrammarScriptedModel([code("final_answer(1)")])
    agent = CodeAgent(tools=[], model=model, grammar="root ::= .*", verbosity_level=-1)
    assert agent.run("x") == 1
    assert model.call_kwargs[0]["grammar"] == "root ::= .*"


@pytest.mark.parametrize("executor_type", ["local", "sandbox"])
def test_executor_type_names(executor_type):
    agent = CodeAgent(tools=[], model=ScriptedModel([code("final_answer(5)")]),
                      executor_type=executor_type, verbosity_level=-1)  # fmt: skip
    try:
        assert agent.run("five") == 5
    finally:
        agent.close()


# -- models ------------------------------------------------------------------------------------


def test_model_to_dict_and_from_dict_round_trip():
    model = agents.OpenAIModel(model_id="gpt-x", api_base="http://127.0.0.1:9/v1", temperature=0.2)
    data = model.to_dict()
    again = agents.OpenAIServerModel.from_dict({**data, "api_base": "http://127.0.0.1:9/v1",
                                                "last_input_token_count": 12})  # fmt: skip
    assert (again.model_id, again.kwargs["temperature"]) == ("gpt-x", 0.2)
    assert again.last_input_token_count is None  # no call yet


def test_extract_action_splits_at_the_last_marker():
    agent = CodeAgent(tools=[], model=ScriptedModel([]), verbosity_level=-1)
    assert agent.extract_action("I think.\nAction: do it", "Action:") == ("I think.", "do it")
    with pytest.raises(agents.AgentParsingError, match="Action:"):
        agent.extract_action("no marker here", "Action:")


# -- the guided tour's model choices and default toolbox ----------------------------------------


def test_guided_tour_models_and_default_toolbox(monkeypatch):
    from agents import AzureOpenAIServerModel, HfApiModel, LiteLLMModel

    model = HfApiModel(model_id="meta-llama/Llama-3.3-70B-Instruct", token="<YOUR_TOKEN>")
    agent = CodeAgent(tools=[], model=model, add_base_tools=True)
    # web search, the transcriber (and visit_webpage); the interpreter only for tool callers
    assert {"web_search", "transcriber", "final_answer"} <= set(agent.tools)
    assert "python_interpreter" not in agent.tools
    assert (
        "python_interpreter" in ToolCallingAgent(tools=[], model=model, add_base_tools=True).tools
    )
    LiteLLMModel(model_id="anthropic/claude-3-5-sonnet-latest", api_key="YOUR_ANTHROPIC_API_KEY")
    ollama = LiteLLMModel(model_id="ollama_chat/llama3.2", api_base="http://localhost:11434",
                          api_key="YOUR_API_KEY", num_ctx=8192)  # fmt: skip
    assert ollama.kwargs["num_ctx"] == 8192
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "https://example-endpoint.openai.azure.com")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "key")
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-01-preview")
    azure = AzureOpenAIServerModel(model_id="gpt-4o-mini")
    assert CodeAgent(tools=[], model=azure, add_base_tools=True).model is azure
    agent.close()


PROMPT_FILES = sorted(p.stem for p in (Path(agents.__file__).parent / "prompts").glob("*.yaml"))


@pytest.mark.parametrize("name", PROMPT_FILES)
def test_every_packaged_prompt_file_renders_with_smolagents_variables(name):
    from agents.prompts import load_prompt_templates, render

    templates = load_prompt_templates(name)
    helper = CodeAgent(tools=[], model=ScriptedModel([]), name="helper", description="Helps.")
    agent_class = ToolCallingAgent if "toolcalling" in name else CodeAgent
    agent = agent_class(tools=[get_weather], model=ScriptedModel([]), managed_agents=[helper],
                        prompt_templates=templates, instructions="Be brief.")  # fmt: skip
    assert "get_weather" in agent.system_prompt and "helper" in agent.system_prompt
    scope = {"task": "T", "tools": agent.tools, "managed_agents": agent.managed_agents}
    planning = templates["planning"]
    assert "T" in render(planning["initial_plan"], **scope)
    assert "T" in render(planning["update_plan_pre_messages"], task="T")
    assert render(planning["update_plan_post_messages"], **scope, remaining_steps=3)
    assert "T" in render(templates["managed_agent"]["task"], name="helper", task="T")
    assert "42" in render(templates["managed_agent"]["report"], name="helper", final_answer="42")
    assert render(templates["final_answer"]["pre_messages"])
    assert "T" in render(templates["final_answer"]["post_messages"], task="T")


# -- "How do multi-step agents work?" ---------------------------------------------------------


def test_the_react_loop_as_the_conceptual_guide_describes_it():
    from agents import PlanningStep, SystemPromptStep

    seen_steps = []
    model = ScriptedModel(["1. compute", code("x = 2 ** 10", "print(x)"), code("final_answer(x)")])
    agent = CodeAgent(tools=[], model=model, planning_interval=5, verbosity_level=-1,
                      step_callbacks=[seen_steps.append])  # fmt: skip
    assert agent.run("What is 2 to the 10th?") == 1024
    # initialization: the system prompt in a SystemPromptStep, the query in a TaskStep
    assert isinstance(agent.memory.system_prompt, SystemPromptStep)
    kinds = [type(s) for s in agent.memory.steps]
    assert kinds == [TaskStep, PlanningStep, ActionStep, ActionStep]
    # each action step sends the memory, written as messages, to the model
    last = agent.memory.steps[-1]
    assert [m.text for m in last.model_input_messages] == [
        m.text for m in agent.write_memory_to_messages()[: len(last.model_input_messages)]
    ]
    assert "1024" in agent.memory.steps[2].observations
    # callbacks run at the end of every step, planning included
    assert seen_steps == agent.memory.steps[1:]


def test_agent_as_a_context_manager_cleans_up():
    with CodeAgent(tools=[], model=ScriptedModel([code("final_answer(8)")]),
                   verbosity_level=-1) as agent:  # fmt: skip
        assert agent.run("eight") == 8
        pid = agent.executor.worker_pid
        assert pid is not None
    assert agent.executor.worker_pid is None
    agent.cleanup()  # a second release is harmless
