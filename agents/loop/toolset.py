"""Assemble an agent's tools and managed agents, checking names once at construction."""

from __future__ import annotations

from typing import Any

from agents.errors import AgentConfigError
from tools.base import Tool
from tools.final_answer import FinalAnswerTool


def build_toolset(
    tools: list[Any] | None,
    managed_agents: list[Any] | None,
    add_base_tools: bool,
    include_python_interpreter: bool,
) -> tuple[dict[str, Tool], dict[str, Any]]:
    """Return `({name: tool}, {name: managed agent})`, with `final_answer` always present.

    Raises:
        AgentConfigError: On a non-Tool, a missing name, or two things with the same name.
    """
    from agents.loop.managed import ManagedAgentTool, unwrap_managed

    listed = list(tools or [])
    if add_base_tools:
        from tools.toolbox import base_tools

        listed += base_tools(include_python_interpreter=include_python_interpreter)
    by_name: dict[str, Tool] = {}
    for item in listed:
        if not isinstance(item, Tool):
            raise AgentConfigError(
                f"{item!r} is not a Tool: decorate functions with @tool or subclass Tool."
            )
        if item.name in by_name and by_name[item.name] is not item:
            if add_base_tools and item.name != "final_answer":
                continue  # a user tool replaces the base tool of the same name
            raise AgentConfigError(f"Two tools are named '{item.name}'; names must be unique.")
        by_name[item.name] = item
    by_name.setdefault("final_answer", FinalAnswerTool())
    managed: dict[str, Any] = {}
    for entry in managed_agents or []:
        agent, name, description = unwrap_managed(entry)
        if not name or not description:
            raise AgentConfigError(
                "A managed agent needs a name and a description: pass name=... and "
                "description=... when you create it."
            )
        if name in by_name or name in managed:
            raise AgentConfigError(
                f"Managed agent name '{name}' is already used by a tool or agent."
            )
        managed[name] = ManagedAgentTool(agent, name, description)
    return by_name, managed
