"""What an agent was built from: its constructor's arguments, as given, in a typed record.

Each constructor records its own arguments in plain code (`MultiStepAgent.config`); `clone`
builds a twin from the record. A subclass records a fuller one after its base's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from agents.errors import AgentConfigError
from agents.models.protocol import AgentModel
from agents.observability.console import ConsoleLogger, LogLevel

if TYPE_CHECKING:
    from agents.executors.base import CodeExecutor
    from agents.loop.profile import ModelProfile


@dataclass
class AgentConfig:
    """The arguments of `MultiStepAgent(...)` (see it for what each one means).

    Raises:
        AgentConfigError: A configuration mistake, with how to fix it.
    """

    tools: list[Any]
    model: Any
    prompt_templates: dict[str, Any] | None = None
    max_steps: int = 20
    add_base_tools: bool = False
    verbosity_level: int = LogLevel.INFO
    managed_agents: list[Any] | None = None
    step_callbacks: list[Callable] | dict[type, Any] | None = None
    planning_interval: int | None = None
    name: str | None = None
    description: str | None = None
    provide_run_summary: bool = False
    final_answer_checks: list[Callable] | None = None
    return_full_result: bool = False
    stream_outputs: bool = False
    max_context_tokens: int | None = None
    instructions: str | None = None
    logger: ConsoleLogger | None = None
    grammar: Any = None
    approve: Any = "never"
    approver: Callable | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.model, AgentModel):
            raise AgentConfigError(
                f"model must be a Model with a generate() method, got {self.model!r}. Subclass "
                "agents.Model, which provides the rest an agent calls (see "
                "agents.models.protocol.AgentModel)."
            )
        if self.max_steps < 1:
            raise AgentConfigError(f"max_steps must be at least 1, got {self.max_steps}.")
        if self.planning_interval is not None and self.planning_interval < 1:
            raise AgentConfigError("planning_interval must be a positive number of steps.")
        if self.name is not None and not str(self.name).isidentifier():
            raise AgentConfigError(f"Agent name {self.name!r} must be a Python identifier.")

    def arguments(self) -> dict[str, Any]:
        """The keyword arguments that build the same agent again."""
        return {field.name: self.__dict__[field.name] for field in fields(self)}


@dataclass
class CodeAgentConfig(AgentConfig):
    """The arguments of `CodeAgent(...)`: those of `MultiStepAgent` and the code's own."""

    additional_authorized_imports: list[str] | None = None
    executor_type: str = "sandbox"
    executor_kwargs: dict[str, Any] | None = None
    executor: CodeExecutor | None = None
    max_print_outputs_length: int | None = None
    use_structured_outputs_internally: bool = False
    code_block_tags: str | tuple[str, str] | None = None
    small_model: bool | ModelProfile | None = None


@dataclass
class ToolCallingAgentConfig(AgentConfig):
    """The arguments of `ToolCallingAgent(...)`: those of `MultiStepAgent` and its own."""

    max_tool_threads: int | None = None
    small_model: bool | ModelProfile | None = None
