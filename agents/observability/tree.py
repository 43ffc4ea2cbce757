"""A text tree of an agent, its tools and its managed agents (for `agent.visualize()`)."""

from __future__ import annotations

from typing import Any


def agent_tree(agent: Any, prefix: str = "") -> str:
    """Render `agent` as an indented tree."""
    title = f"{type(agent).__name__}"
    if agent.name:
        title += f" '{agent.name}'"
    title += f" · model {agent.model.model_id or type(agent.model).__name__}"
    lines = [prefix + title]
    tools = [t for name, t in agent.tools.items()]
    lines.append(f"{prefix}├── Tools ({len(tools)})")
    for index, tool in enumerate(tools):
        branch = "└──" if index == len(tools) - 1 else "├──"
        lines.append(f"{prefix}│   {branch} {tool.signature()}")
    managed = list(agent.managed_agents.values())
    lines.append(f"{prefix}└── Managed agents ({len(managed)})")
    for wrapper in managed:
        lines.append(f"{prefix}    └── {wrapper.name}: {wrapper.description}")
        lines.append(agent_tree(wrapper.agent, prefix + "        "))
    return "\n".join(lines)
