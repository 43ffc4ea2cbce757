"""MCP: a real MCP server (stdio and streamable HTTP) whose tools agents use."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from agents import CodeAgent, ScriptedModel, ScriptedReply, ToolCallingAgent
from tests.tools.mcp_server_process import SERVER, http_mcp_server
from tools.base import ToolExecutionError
from tools.collection import ToolCollection
from tools.hub import TrustRemoteCodeError
from tools.mcp import MCPClient, schema_to_inputs

pytestmark = pytest.mark.slow  # every test but one starts a real MCP server process


@pytest.fixture(scope="module")
def stdio_params():
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=[SERVER])


def test_server_tools_become_tools(stdio_params) -> None:
    with MCPClient(stdio_params) as tools:
        by_name = {t.name: t for t in tools}
        assert set(by_name) == {"add", "word_count", "explode"}
        assert by_name["add"].inputs["a"]["type"] == "integer"
        assert by_name["word_count"].inputs["unique"].get("nullable") is True
        assert by_name["word_count"].remote_name == "word-count"
        assert by_name["add"](a=2, b=3) == "5"
        assert by_name["word_count"](text="a b a", unique=True) == "2"
        with pytest.raises(ToolExecutionError, match="exploded: boom"):
            by_name["explode"](reason="boom")


def test_tool_collection_needs_trust(stdio_params) -> None:
    with (
        pytest.raises(TrustRemoteCodeError, match="trust_remote_code=True"),
        ToolCollection.from_mcp(stdio_params),
    ):
        pass


def test_tool_calling_agent_uses_mcp_tools(stdio_params) -> None:
    model = ScriptedModel(
        [
            ScriptedReply(tool_calls=[("add", {"a": 20, "b": 22})]),
            ScriptedReply(tool_calls=[("explode", {"reason": "on purpose"})]),
            ScriptedReply(tool_calls=[("word_count", {"text": "one two three"})]),
            ScriptedReply(tool_calls=[("final_answer", {"answer": "done"})]),
        ]
    )
    with ToolCollection.from_mcp(stdio_params, trust_remote_code=True) as collection:
        agent = ToolCallingAgent(tools=collection.tools, model=model, verbosity_level=-1)
        assert agent.run("use the server") == "done"
    steps = agent.memory.steps
    assert steps[1].observations == "42"
    assert "exploded: on purpose" in steps[2].error.message
    assert steps[3].observations == "3"


def test_code_agent_uses_mcp_tools(stdio_params) -> None:
    code = "total = add(a=1, b=2)\nprint('total', total)\nfinal_answer(int(total) * 10)"
    model = ScriptedModel([f"Thought: add.\n<code>\n{code}\n</code>"])
    with ToolCollection.from_mcp(stdio_params, trust_remote_code=True) as collection:
        agent = CodeAgent(
            tools=collection.tools, model=model, executor_type="local", verbosity_level=-1
        )
        assert agent.run("add") == 30
    assert "total 3" in agent.memory.steps[1].observations


def test_dead_server_is_a_clear_error() -> None:
    from mcp import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-c", "raise SystemExit(3)"])
    # Noticed as the server's exit, not as the (generous) connect timeout running out.
    with pytest.raises(Exception, match="Could not connect to the MCP server"):
        MCPClient(params, connect_timeout=120).connect()


def test_calls_after_disconnect_are_refused(stdio_params) -> None:
    with MCPClient(stdio_params) as tools:
        add = tools[0]
    with pytest.raises(ToolExecutionError, match="not connected"):
        add(a=1, b=1)


@pytest.fixture
def http_server() -> Iterator[str]:
    with http_mcp_server() as url:
        yield url


def test_streamable_http_transport(http_server: str) -> None:
    with MCPClient({"url": http_server}) as tools:
        by_name = {t.name: t for t in tools}
        assert by_name["add"](a=4, b=5) == "9"


def test_schema_conversion_handles_unions_and_unknown_types() -> None:
    inputs = schema_to_inputs(
        {
            "properties": {
                "q": {"type": "string", "description": "query"},
                "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "mode": {"type": ["string", "null"], "enum": ["a", "b"]},
                "blob": {"type": "weird"},
            },
            "required": ["q", "limit"],
        }
    )
    assert inputs["q"] == {"type": "string", "description": "query"}
    assert inputs["limit"]["type"] == "integer" and inputs["limit"]["nullable"]
    assert inputs["mode"]["enum"] == ["a", "b"] and inputs["mode"]["nullable"]
    assert inputs["blob"]["type"] == "any" and inputs["blob"]["description"] == "blob"
