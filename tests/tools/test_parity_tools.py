"""smolagents tool scripts, imports changed only: Hub/saved tools and agents written by
smolagents, Tool.from_*, the extra default tools and their constructor arguments."""

from __future__ import annotations

import builtins
import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from agents import CodeAgent, MultiStepAgent, ScriptedModel, ToolCallingAgent
from agents.errors import AgentConfigError
from tools import (
    ApiWebSearchTool,
    DuckDuckGoSearchTool,
    GoogleSearchTool,
    PythonInterpreterTool,
    Tool,
    UserInputTool,
    WebSearchTool,
    WikipediaSearchTool,
    load_tool,
)
from tools.hub import TrustRemoteCodeError

# What smolagents' `Tool.save()` writes for a Tool subclass.
SMOLAGENTS_TOOL = """from typing import Any, Optional
from smolagents.tools import Tool
import smolagents

class SimpleTool(Tool):
    name = "get_weather"
    description = "Gives the weather in a city."
    inputs = {"city": {"type": "string", "description": "The city."}}
    output_type = "string"

    def forward(self, city: str) -> str:
        assert smolagents.Tool is Tool
        return f"Sunny in {city}"

    def __init__(self, *args, **kwargs):
        self.is_initialized = False
"""

SMOLAGENTS_FINAL_ANSWER = """from typing import Any, Optional
from smolagents.tools import Tool

class FinalAnswerTool(Tool):
    name = "final_answer"
    description = "Provides a final answer to the given problem."
    inputs = {'answer': {'type': 'any', 'description': 'The final answer to the problem'}}
    output_type = "any"

    def forward(self, answer: Any) -> Any:
        return answer
"""

SMOLAGENTS_AT_TOOL = '''from smolagents import tool

@tool
def add(a: int, b: int) -> int:
    """Adds two integers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b
'''


def code(*lines: str) -> str:
    return "Thought: next.\n<code>\n" + "\n".join(lines) + "\n</code>"


# -- tools and agents saved by smolagents --------------------------------------------------------


def test_load_tool_repo_id_loads_a_smolagents_saved_tool(tmp_path: Path) -> None:
    (tmp_path / "tool.py").write_text(SMOLAGENTS_TOOL)
    with pytest.raises(TrustRemoteCodeError):
        load_tool(repo_id=str(tmp_path))
    weather = load_tool(repo_id=str(tmp_path), trust_remote_code=True)
    assert isinstance(weather, Tool) and weather.name == "get_weather"
    assert weather(city="Paris") == "Sunny in Paris"
    assert "smolagents" not in sys.modules  # mapped inside the loader only


def test_a_name_smolagents_has_and_we_lack_is_a_clear_import_error() -> None:
    with pytest.raises(ImportError, match="Porting from smolagents"):
        Tool.from_code("from smolagents import NoSuchThing\n")


def test_tool_from_code_and_from_dict() -> None:
    add = Tool.from_code(SMOLAGENTS_AT_TOOL)
    assert add(a=2, b=3) == 5 and add.inputs["a"]["type"] == "integer"
    weather = Tool.from_dict({"name": "get_weather", "code": SMOLAGENTS_TOOL, "requirements": []})
    assert weather(city="Oslo") == "Sunny in Oslo"
    with pytest.raises(AgentConfigError, match="'code'"):
        Tool.from_dict({"name": "x", "description": "no code"})


def _smolagents_agent_dict(tools: list) -> dict:
    return {
        "class": "CodeAgent",
        "tools": tools,
        "model": {"class": "OpenAIServerModel",
                  "data": {"model_id": "gpt-4o", "api_base": "http://127.0.0.1:9/v1",
                           "last_input_token_count": 0}},
        "managed_agents": {},
        "prompt_templates": None,
        "max_steps": 7,
        "verbosity_level": 0,
        "grammar": None,
        "planning_interval": None,
        "name": None,
        "description": None,
        "requirements": [],
        "authorized_imports": ["math", "json", "bs4"],
        "executor_type": "local",
        "executor_kwargs": {},
        "max_print_outputs_length": None,
    }  # fmt: skip


def test_agent_from_folder_saved_by_smolagents_keeps_its_tools(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "get_weather.py").write_text(SMOLAGENTS_TOOL)
    (tmp_path / "tools" / "final_answer.py").write_text(SMOLAGENTS_FINAL_ANSWER)
    (tmp_path / "tools" / "__init__.py").write_text("")
    data = _smolagents_agent_dict(["get_weather", "final_answer"])
    (tmp_path / "agent.json").write_text(json.dumps(data))
    (tmp_path / "prompts.yaml").write_text(
        "system_prompt: |-\n  Tools:{% for tool in tools.values() %} {{ tool.name }}{% endfor %}"
        " | imports: {{authorized_imports}}\n"
    )
    model = ScriptedModel([code("final_answer(get_weather(city='Rome'))")])
    agent = CodeAgent.from_folder(tmp_path, trust_remote_code=True, model=model)
    assert set(agent.tools) == {"get_weather", "final_answer"}
    assert agent.max_steps == 7 and agent.additional_authorized_imports == ["bs4"]
    assert agent.system_prompt.startswith("Tools: get_weather final_answer | imports:")
    try:
        assert agent.run("Weather in Rome?") == "Sunny in Rome"
    finally:
        agent.close()
    loaded_model = CodeAgent.from_folder(tmp_path, trust_remote_code=True).model
    assert type(loaded_model).__name__ == "OpenAIServerModel"
    assert loaded_model.model_id == "gpt-4o"


def test_agent_from_dict_written_by_smolagents() -> None:
    tools = [{"name": "get_weather", "code": SMOLAGENTS_TOOL, "requirements": []},
             {"name": "final_answer", "code": SMOLAGENTS_FINAL_ANSWER, "requirements": []}]  # fmt: skip
    data = _smolagents_agent_dict(tools)
    agent = MultiStepAgent.from_dict(data, trust_remote_code=True)
    assert isinstance(agent, CodeAgent) and set(agent.tools) == {"get_weather", "final_answer"}
    assert agent.tools["get_weather"](city="Lima") == "Sunny in Lima"
    agent.close()


# -- Tool.from_space / from_langchain / from_gradio ----------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_tool_from_space_calls_a_real_gradio_app() -> None:
    import gradio as gr

    demo = gr.Interface(fn=lambda text: text[::-1], inputs=gr.Textbox(label="text"),
                        outputs="text", api_name="reverse")  # fmt: skip
    port = _free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        reverse = Tool.from_space(f"http://127.0.0.1:{port}/", name="reverse",
                                  description="Reverses a text.")  # fmt: skip
        assert reverse.inputs["text"]["type"] == "string"
        assert reverse(text="smolui") == "iuloms"
        model = ScriptedModel([code("final_answer(reverse(text='abc'))")])
        agent = CodeAgent(tools=[reverse], model=model, verbosity_level=-1)
        try:
            assert agent.run("Reverse abc") == "cba"
        finally:
            agent.close()
    finally:
        demo.close()


def test_tool_from_space_unreachable_is_a_clear_error() -> None:
    with pytest.raises(AgentConfigError, match="could not reach"):
        Tool.from_space(f"http://127.0.0.1:{_free_port()}/", name="x", description="x")


def test_tool_from_langchain_needs_langchain() -> None:
    try:
        import langchain_core  # noqa: F401
    except ImportError:
        with pytest.raises(AgentConfigError, match="langchain-core"):
            Tool.from_langchain(object())
    else:
        with pytest.raises(AgentConfigError, match="BaseTool"):
            Tool.from_langchain(object())


class StableDiffusionLikeTool:
    """Shaped like a `gradio_tools` tool: name, description and a typed `run`."""

    name = "Prompt Generator"
    description = "Improves a prompt for image generation."

    def run(self, query: str) -> str:
        return f"{query}, highly detailed"


def test_tool_from_gradio_wraps_a_gradio_tools_tool() -> None:
    wrapped = Tool.from_gradio(StableDiffusionLikeTool())
    assert wrapped.name == "prompt_generator" and wrapped.inputs["query"]["type"] == "string"
    agent = ToolCallingAgent(tools=[wrapped], model=ScriptedModel([]), verbosity_level=-1)
    assert agent.execute_tool_call("prompt_generator", {"query": "a cat"}) == (
        "a cat, highly detailed"
    )


# -- extra default tools and constructor arguments ------------------------------------------------


def test_user_input_tool(monkeypatch) -> None:
    asked = []
    monkeypatch.setattr(builtins, "input", lambda prompt: asked.append(prompt) or "blue")
    assert UserInputTool()(question="Favourite colour?") == "blue"
    assert asked[0].startswith("Favourite colour?")


def test_wikipedia_search_tool_without_the_package_is_a_clear_error() -> None:
    try:
        import wikipediaapi  # noqa: F401
    except ImportError:
        with pytest.raises(AgentConfigError, match="wikipedia-api"):
            WikipediaSearchTool(user_agent="tests (tests@example.com)")
    else:
        tool = WikipediaSearchTool(user_agent="tests (tests@example.com)", language="en")
        assert tool.name == "wikipedia_search"


def test_search_api_tools_without_a_key_are_a_clear_error(monkeypatch) -> None:
    for variable in ("SERPAPI_API_KEY", "SERPER_API_KEY", "BRAVE_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    with pytest.raises(AgentConfigError, match="SERPAPI_API_KEY"):
        GoogleSearchTool()
    with pytest.raises(AgentConfigError, match="SERPER_API_KEY"):
        GoogleSearchTool(provider="serper")
    with pytest.raises(AgentConfigError, match="BRAVE_API_KEY"):
        ApiWebSearchTool()


class _SearchApi(BaseHTTPRequestHandler):
    requests: list = []

    def do_GET(self) -> None:  # noqa: N802
        query = parse_qs(urlparse(self.path).query)
        _SearchApi.requests.append((query, dict(self.headers)))
        hit = {"title": "Smol", "link": "https://a.example", "url": "https://a.example",
               "snippet": "tiny agents", "description": "tiny agents"}  # fmt: skip
        body = json.dumps({"organic_results": [hit], "web": {"results": [hit]}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def search_api():
    server = HTTPServer(("127.0.0.1", 0), _SearchApi)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _SearchApi.requests = []
    yield f"http://127.0.0.1:{server.server_address[1]}/search"
    server.shutdown()


def test_google_search_tool_against_a_local_api(search_api, monkeypatch) -> None:
    monkeypatch.setenv("SERPAPI_API_KEY", "k-123")
    google = GoogleSearchTool(endpoint=search_api)
    text = google(query="smolagents", filter_year=2024)
    assert "[Smol](https://a.example)" in text and "tiny agents" in text
    query, _ = _SearchApi.requests[0]
    assert query["q"] == ["smolagents"] and query["api_key"] == ["k-123"]
    assert "cd_min:01/01/2024" in query["tbs"][0]


def test_api_web_search_tool_against_a_local_api(search_api) -> None:
    brave = ApiWebSearchTool(endpoint=search_api, api_key="b-1", rate_limit=None)
    assert "[Smol](https://a.example)" in brave(query="tiny")
    query, headers = _SearchApi.requests[0]
    assert query["q"] == ["tiny"] and headers["X-Subscription-Token"] == "b-1"


def test_default_tools_take_smolagents_constructor_arguments() -> None:
    search = WebSearchTool(max_results=3, engine="bing")
    assert (search.max_results, search.backend) == (3, "bing")
    ddg = DuckDuckGoSearchTool(max_results=10, rate_limit=2.0)
    assert ddg.min_interval == 0.5
    with pytest.raises(Exception, match="rate_limit"):
        DuckDuckGoSearchTool(rate_limit=0)
    interpreter = PythonInterpreterTool(authorized_imports=["math"], timeout_seconds=5)
    assert interpreter.executor_kwargs["timeout"] == 5


@pytest.mark.slow
def test_tool_collection_from_mcp_structured_output() -> None:
    from mcp import StdioServerParameters

    from tools import ToolCollection

    server = str(Path(__file__).with_name("mcp_test_server.py"))
    params = StdioServerParameters(command=sys.executable, args=[server])
    with ToolCollection.from_mcp(params, trust_remote_code=True, structured_output=True) as tools:
        add = {t.name: t for t in tools.tools}["add"]
        assert add.output_type == "object" and "result" in add.output_schema["properties"]
        assert add(a=2, b=3) == {"result": 5}
    with ToolCollection.from_mcp(params, trust_remote_code=True, structured_output=False) as tools:
        assert {t.name: t for t in tools.tools}["add"](a=2, b=3) == "5"


# The shape of the guided tour's Hub tool ("m-ric/text-to-image"), as smolagents saved it.
TEXT_TO_IMAGE_TOOL = """from smolagents import Tool
from huggingface_hub import InferenceClient


class TextToImageTool(Tool):
    description = "This tool creates an image according to a prompt."
    name = "image_generator"
    inputs = {"prompt": {"type": "string", "description": "The image generator prompt."}}
    output_type = "image"
    model_sdxl = "black-forest-labs/FLUX.1-schnell"
    client = InferenceClient(model_sdxl)

    def forward(self, prompt):
        return self.client.text_to_image(prompt)
"""


def test_guided_tour_gradio_example_builds(tmp_path: Path, monkeypatch) -> None:
    from smolui import GradioUI

    monkeypatch.chdir(tmp_path)
    (tmp_path / "space").mkdir()
    (tmp_path / "space" / "tool.py").write_text(TEXT_TO_IMAGE_TOOL)
    image_generation_tool = load_tool(str(tmp_path / "space"), trust_remote_code=True)
    assert image_generation_tool.output_type == "image"
    agent = CodeAgent(tools=[image_generation_tool], model=ScriptedModel([]), verbosity_level=-1)
    assert "def image_generator(prompt: str)" in agent.system_prompt
    ui = GradioUI(agent)
    assert ui.create_app() is not None
    ui.close()


def test_load_tool_from_the_hub_offline_is_a_clear_error(monkeypatch) -> None:
    import huggingface_hub.constants

    # huggingface_hub reads HF_HUB_OFFLINE once, at import: set both.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(Exception, match="HF_HUB_OFFLINE|offline"):
        load_tool("m-ric/text-to-image", trust_remote_code=True)
