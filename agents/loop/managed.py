"""Managed agents: any agent with a name and description, callable by a manager like a tool."""

from __future__ import annotations

from typing import Any

from agents.errors import AgentConfigError
from agents.memory.steps import FinalAnswerStep
from agents.prompts import render
from tools.base import Tool


class ManagedAgent:
    """The older wrapper from the guided tour: `ManagedAgent(agent, name, description)`.

    Args:
        agent: The agent that does the work.
        name: Name the manager calls it by.
        description: What it does, for the manager.
        provide_run_summary: Append a summary of its steps to its report.
    """

    def __init__(
        self,
        agent: Any,
        name: str,
        description: str,
        provide_run_summary: bool = False,
        additional_prompting: str | None = None,
    ):
        if not str(name).isidentifier():
            raise AgentConfigError(f"Managed agent name {name!r} must be a Python identifier.")
        self.agent = agent
        self.name = name
        self.description = description
        agent.name, agent.description = name, description
        agent.provide_run_summary = provide_run_summary or agent.provide_run_summary
        self.additional_prompting = additional_prompting

    def __call__(self, task: str, **kwargs: Any) -> str:
        return run_as_managed(self.agent, task, **kwargs)


def unwrap_managed(entry: Any) -> tuple[Any, str | None, str | None]:
    """Return `(agent, name, description)` for an agent or a `ManagedAgent`."""
    agent = entry.agent if isinstance(entry, ManagedAgent) else entry
    return agent, entry.name, entry.description


def run_as_managed(
    agent: Any, task: str, additional_args: dict[str, Any] | None = None, event_sink: Any = None
) -> str:
    """Run `agent` on a manager's task and return its report (and summary if asked)."""
    templates = agent.prompt_templates["managed_agent"]
    full_task = render(templates["task"], name=agent.name, task=task)
    answer = None
    for event in agent.run(full_task, stream=True, reset=True, additional_args=additional_args):
        if event_sink is not None:
            event_sink(agent.name, event)
        if isinstance(event, FinalAnswerStep):
            answer = event.output
    report = render(templates["report"], name=agent.name, final_answer=str(answer))
    if agent.provide_run_summary:
        report += "\n\nSummary of the helper's work:\n" + _summary(agent)
    return report


def _summary(agent: Any) -> str:
    lines = []
    for message in agent.write_memory_to_messages(summary_mode=True)[1:]:
        text = message.text.strip()
        if text:
            lines.append(text[:1000])
    return "\n---\n".join(lines)


class ManagedAgentTool(Tool):
    """A managed agent seen as a tool taking a `task` (and optional `additional_args`)."""

    inputs = {
        "task": {"type": "string", "description": "The full task for the helper agent."},
        "additional_args": {
            "type": "object",
            "description": "Optional values the helper needs (files, data).",
            "nullable": True,
        },
    }
    output_type = "string"

    def __init__(self, agent: Any, name: str, description: str):
        super().__init__()
        self.agent = agent
        self.name = name
        self.description = description
        self.event_sink = None  # set by the manager to stream the helper's events

    def forward(self, task: str, additional_args: dict[str, Any] | None = None) -> str:
        return run_as_managed(self.agent, task, additional_args, self.event_sink)
