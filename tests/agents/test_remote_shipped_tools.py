"""`tools_in_kernel`: self-contained `@tool` functions shipped by source run inside the remote
kernel, the others still call back to the host, and tools that cannot be shipped are refused
with a message that says why."""

from __future__ import annotations

import os

import pytest

from agents import CodeAgent, ScriptedModel
from agents.errors import AgentConfigError
from agents.executors.remote import JupyterExecutor
from agents.executors.remote.base import shipped_sources
from tests.kernel_gateway import gateway_available
from tools import tool

SCALE = 3  # a constant the shipped tool's source carries along

_registry = {"seen": []}  # an object defined outside a tool: not shippable


@tool
def where_am_i(times: int) -> list:
    """Says which process runs it.

    Args:
        times: A number to multiply by SCALE.
    """
    import os as here

    return [here.getpid(), times * SCALE]


@tool
def host_pid() -> int:
    """Returns the process id of whoever runs the tool."""
    return os.getpid()


@tool
def remember(item: str) -> int:
    """Keeps an item.

    Args:
        item: What to keep.
    """
    _registry["seen"].append(item)
    return len(_registry["seen"])


def test_the_shipped_source_defines_the_plain_function():
    source, name = shipped_sources({"where_am_i": where_am_i}, ["where_am_i"])["where_am_i"]
    namespace: dict = {}
    exec(compile(source, "<shipped>", "exec"), namespace)
    assert name == "where_am_i" and "@tool" not in source and "SCALE = 3" in source
    assert namespace[name](2) == [os.getpid(), 6]


def test_tools_that_cannot_be_shipped_are_refused_clearly():
    tools = {"remember": remember, "host_pid": host_pid}
    with pytest.raises(
        AgentConfigError, match="remember cannot run in the remote kernel.*_registry"
    ):
        shipped_sources(tools, ["remember"])
    with pytest.raises(AgentConfigError, match="names final_answer, nope"):
        shipped_sources(tools, ["nope", "final_answer"])
    with pytest.raises(AgentConfigError, match="a list of tool names"):
        JupyterExecutor("http://127.0.0.1:9", tools_in_kernel="where_am_i")
    with pytest.raises(
        AgentConfigError, match="x cannot run in the remote kernel: x is not a @tool function"
    ):
        JupyterExecutor("http://127.0.0.1:9", tools_in_kernel=["x"]).send_tools(
            {"x": shipped_tool_class()}
        )


def shipped_tool_class():
    from tools import Tool

    class Echo(Tool):
        name = "x"
        description = "Echoes."
        inputs = {"text": {"type": "string", "description": "Text."}}
        output_type = "string"

        def forward(self, text: str) -> str:
            return text

    return Echo()


@pytest.mark.slow
@pytest.mark.skipif(not gateway_available(), reason="pip install jupyter_kernel_gateway")
def test_a_shipped_tool_runs_in_the_kernel_and_the_others_on_the_host(kernel_gateway):
    agent = CodeAgent(
        tools=[where_am_i, host_pid],
        model=ScriptedModel(
            [
                "Thought: go.\n<code>\nimport os\nfinal_answer((where_am_i(2), host_pid(), "
                "os.getpid()))\n</code>"
            ]
        ),
        additional_authorized_imports=["os"],
        executor_type="jupyter",
        executor_kwargs={
            "url": kernel_gateway.url,
            "token": kernel_gateway.token,
            "tools_in_kernel": ["where_am_i"],
        },
        verbosity_level=-1,
    )
    try:
        (shipped_pid, scaled), host, kernel = agent.run("where")
        assert (shipped_pid, scaled) == (kernel, 6)
        assert host == os.getpid() != kernel
    finally:
        agent.close()
