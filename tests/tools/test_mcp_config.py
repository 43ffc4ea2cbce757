"""MCP servers by configuration: the file's forms, and a real MCP server (stdio and streamable
HTTP on loopback) whose allowed tools join the agents the app's factory builds, while a server
that is down is logged once and skipped."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator

import pytest

from agents.errors import AgentConfigError
from tests.tools.mcp_server_process import SERVER, free_port, http_mcp_server
from tools.mcp_config import ConfiguredTools, load_servers, resolve

ADDS = "Thought: add.\n<code>\ntotal = add(a=20, b=22)\nfinal_answer(int(total))\n</code>"


@pytest.fixture
def http_server() -> Iterator[str]:
    with http_mcp_server() as url:
        yield url


def _stdio(**more: object) -> dict[str, object]:
    return {"command": sys.executable, "args": [SERVER], **more}


def test_a_yaml_file_and_inline_json_name_the_same_servers(tmp_path):
    (tmp_path / "tools.yaml").write_text(
        "servers:\n"
        "  calc:\n"
        "    command: python\n"
        "    args: [calc.py]\n"
        "    tools: [add, word-count]\n"
        "  search:\n"
        "    url: https://example.com/mcp\n"
        '    headers: {Authorization: "Bearer ${SEARCH_TOKEN}"}\n'
        "    timeout: 5\n"
    )
    from_file = load_servers(str(tmp_path / "tools.yaml"))
    inline = {"mcpServers": {"calc": {"command": "python", "args": ["calc.py"],
                                      "tools": ["add", "word-count"]},
                             "search": {"url": "https://example.com/mcp", "timeout": 5,
                                        "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"}}}}  # fmt: skip
    assert load_servers(json.dumps(inline)) == from_file
    calc, search = from_file
    assert calc.allowed == ("add", "word-count") and calc.params["args"] == ["calc.py"]
    assert search.timeout == 5 and search.params["transport"] == "streamable-http"
    filled = resolve(search.params, {"SEARCH_TOKEN": "s3cret"})
    assert filled["headers"] == {"Authorization": "Bearer s3cret"}
    assert search.params["headers"]["Authorization"] == "Bearer ${SEARCH_TOKEN}"  # kept unread
    with pytest.raises(KeyError, match="SEARCH_TOKEN"):
        resolve(search.params, {})


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ('{"servers": {"x": {"command": "a", "url": "http://b"}}}', "either 'command'"),
        ('{"servers": {"x": {"command": "a", "tool": ["add"]}}}', "unknown keys"),
        ('{"servers": {"x": {"url": "http://b", "tools": "add"}}}', "list of tool names"),
        ('{"servers": ["x"]}', "'servers' must map"),
        ("{not json", "not valid JSON"),
        ("/no/such/tools.yaml", "no file"),
    ],
)
def test_a_malformed_configuration_says_what_to_fix(config, problem):
    with pytest.raises(AgentConfigError, match=problem):
        load_servers(config)


@pytest.mark.slow  # starts real MCP servers
def test_allowed_tools_of_a_live_server_join_and_a_down_server_is_skipped_once(http_server, caplog):
    down = f"http://127.0.0.1:{free_port()}/mcp"  # nobody listens there
    config = {"servers": {"down": {"url": down, "timeout": 60},
                          "calc": _stdio(tools=["add", "word-count"]),
                          "remote": {"url": http_server, "tools": ["explode"]}}}  # fmt: skip
    configured = ConfiguredTools(load_servers(json.dumps(config)))
    try:
        with caplog.at_level(logging.WARNING, logger="tools.mcp_config"):
            first = configured.tools()
            again = configured.tools(reserved={"word_count"})  # a tool the agent has already
        by_name = {tool.name: tool for tool in first}
        assert set(by_name) == {"add", "word_count", "explode"}
        assert by_name["add"](a=2, b=3) == "5"
        assert {tool.name for tool in again} == {"add", "explode"}
        skipped = [r.getMessage() for r in caplog.records if "'down' is skipped" in r.getMessage()]
        assert len(skipped) == 1  # once, not at every agent
    finally:
        configured.close()


@pytest.mark.slow  # starts a real MCP server
def test_the_app_s_agents_use_the_configured_tools_and_a_down_server_breaks_no_turn(tmp_path):
    from smolui.app.factory import AgentFactory
    from smolui.app.settings import settings_from_args

    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([ADDS]))
    down = f"http://127.0.0.1:{free_port()}/mcp"
    servers = json.dumps({"servers": {"calc": _stdio(tools=["add"]), "down": {"url": down}}})
    settings = settings_from_args(["--model", f"scripted:{replies}", "--executor", "local"],
                                  {"SMOLUI_MCP_SERVERS": servers})  # fmt: skip
    factory = AgentFactory(settings, loader=None)
    try:
        first, second = factory(tmp_path / "a"), factory(tmp_path / "b")
        assert "add" in first.tools and "add" in second.tools
        assert "word_count" not in first.tools  # not on the allow-list
        assert first.run("Add 20 and 22 with the calculator.") == 42
    finally:
        factory.mcp_tools.close()
