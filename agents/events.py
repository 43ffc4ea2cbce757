"""The events of an agent run: what `agent.run(task, stream=True)` yields, as one type.

The UI, the console and the tests consume the same stream. Steps are the memory's own
records (`agents.memory.steps`); the rest are small stream-only dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from agents.memory.steps import (
    ActionOutput,
    ActionStep,
    FinalAnswerStep,
    PlanningStep,
    TaskStep,
    ToolCall,
    ToolOutput,
)
from agents.models.messages import ChatMessageStreamDelta


@dataclass
class SubAgentEvent:
    """An event of a managed agent, streamed while its manager's step runs.

    Args:
        agent_name: The managed agent's name.
        event: The managed agent's own event (step, delta, final answer...).
    """

    agent_name: str
    event: AgentEvent


@dataclass
class CodeOutputSoFar:
    """What a step's code has printed so far, streamed while it runs (executors that report
    output live, like the sandbox); the step's observation replaces it when the step ends.
    Never stored: memory keeps only the final output.

    Args:
        text: The output so far; its last lines when it is long.
    """

    text: str


AgentEvent: TypeAlias = (
    ChatMessageStreamDelta  # a piece of the model's answer, when streaming outputs
    | ToolCall  # a call about to run (code counts as a python_interpreter call)
    | ToolOutput  # one tool call's result
    | CodeOutputSoFar  # what the running code printed so far
    | ActionOutput  # what the step's action produced; final or not
    | ActionStep  # a finished step, as recorded in memory
    | PlanningStep  # a plan, as recorded in memory
    | TaskStep  # a task, as recorded in memory
    | SubAgentEvent  # an event of a managed agent, relayed live
    | FinalAnswerStep  # the last event of a run
)
"""Everything `run(stream=True)` may yield."""

__all__ = [
    "ActionOutput",
    "ActionStep",
    "AgentEvent",
    "ChatMessageStreamDelta",
    "CodeOutputSoFar",
    "FinalAnswerStep",
    "PlanningStep",
    "SubAgentEvent",
    "TaskStep",
    "ToolCall",
    "ToolOutput",
]
