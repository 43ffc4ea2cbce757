"""Agent memory: the steps (`ActionStep`, `TaskStep`, ... in `steps`), how they become model
messages within the context window (`context`, `step_tracking`), the cap on step images kept
(`image_budget`), the answers a person gave to approval requests (`approvals`) and memory as
plain data for storage (`io`).

The step classes are re-exported here, as smolagents exports them from `smolagents.memory`.

May import: agents.errors, agents.models, agents.observability, tools.agent_types.
"""

from agents.memory.steps import (
    ActionOutput,
    ActionStep,
    AgentMemory,
    FinalAnswerStep,
    MemoryStep,
    PlanningStep,
    SystemPromptStep,
    TaskStep,
    ToolCall,
    ToolOutput,
)

__all__ = [
    "ActionOutput",
    "ActionStep",
    "AgentMemory",
    "FinalAnswerStep",
    "MemoryStep",
    "PlanningStep",
    "SystemPromptStep",
    "TaskStep",
    "ToolCall",
    "ToolOutput",
]
