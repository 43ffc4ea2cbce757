"""Memory steps (what happened) and how each becomes messages for the model."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from agents.errors import AgentError
from agents.memory.approvals import ApprovalRecord
from agents.memory.step_tracking import StepList, stamp_change
from agents.models.messages import ChatMessage, MessageRole, TokenUsage


@dataclass
class Timing:
    """When a step started and ended (seconds since the epoch)."""

    start_time: float = field(default_factory=time.time)
    end_time: float | None = None

    @property
    def duration(self) -> float | None:
        return None if self.end_time is None else self.end_time - self.start_time

    def dict(self) -> dict[str, Any]:
        return {"start_time": self.start_time, "end_time": self.end_time, "duration": self.duration}


@dataclass
class ToolCall:
    """A tool call the agent made (also a stream event, sent before the tool runs)."""

    name: str
    arguments: Any
    id: str

    def dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass
class ToolOutput:
    """A stream event: one tool call's result."""

    id: str
    output: Any
    is_final_answer: bool
    observation: str
    tool_call: ToolCall


@dataclass
class ActionOutput:
    """A stream event: what a step's action produced."""

    output: Any
    is_final_answer: bool


@dataclass
class MemoryStep:
    """Base of the steps in memory.

    `stamp` changes whenever a field is assigned, so the messages made from a step are
    kept until then (`agents.memory.step_tracking`). Change a step by assigning its fields, not
    by editing a list or object in place.
    """

    stamp = -1

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        stamp_change(self.__dict__)

    def to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        raise NotImplementedError

    def dict(self) -> dict[str, Any]:
        return {"type": type(self).__name__}


@dataclass
class SystemPromptStep(MemoryStep):
    system_prompt: str

    def to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        if summary_mode:
            return []
        return [_text(MessageRole.SYSTEM, self.system_prompt)]

    def dict(self) -> dict[str, Any]:
        return {"type": "SystemPromptStep", "system_prompt": self.system_prompt}


@dataclass
class TaskStep(MemoryStep):
    task: str
    task_images: list[Any] | None = None

    def to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        content: list[dict[str, Any]] = [{"type": "text", "text": f"New task:\n{self.task}"}]
        content += [{"type": "image", "image": image} for image in self.task_images or []]
        return [ChatMessage(role=MessageRole.USER.value, content=content)]

    def dict(self) -> dict[str, Any]:
        return {"type": "TaskStep", "task": self.task, "images": len(self.task_images or [])}


@dataclass
class ActionStep(MemoryStep):
    """One think-act-observe cycle; `approvals` holds a person's answers when the agent asked
    before acting (`agents.approval`)."""

    step_number: int
    timing: Timing = field(default_factory=Timing)
    model_input_messages: list[ChatMessage] | None = field(default=None, repr=False)
    tool_calls: list[ToolCall] | None = None
    error: AgentError | None = None
    model_output_message: ChatMessage | None = None
    model_output: str | None = None
    code_action: str | None = None
    observations: str | None = None
    observations_images: list[Any] | None = None
    action_output: Any = None
    token_usage: TokenUsage | None = None
    is_final_answer: bool = False
    approvals: list[ApprovalRecord] | None = None

    def to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        messages = []
        if self.model_output and not summary_mode:
            messages.append(_text(MessageRole.ASSISTANT, self.model_output.strip()))
        if self.tool_calls:
            calls = json.dumps([c.dict() for c in self.tool_calls], default=str)
            messages.append(_text(MessageRole.TOOL_CALL, f"Calling tools:\n{calls}"))
        if self.observations_images:
            messages.append(
                ChatMessage(
                    role=MessageRole.USER.value,
                    content=[
                        {"type": "image", "image": image} for image in self.observations_images
                    ],
                )
            )
        if self.observations is not None:
            messages.append(_text(MessageRole.TOOL_RESPONSE, f"Observation:\n{self.observations}"))
        if self.error is not None:
            note = (
                f"Error:\n{self.error.message}\n"
                "Now let's retry: take care not to repeat previous errors! "
                "If you have retried several times, try a completely different approach."
            )
            messages.append(_text(MessageRole.TOOL_RESPONSE, note))
        return messages

    def dict(self) -> dict[str, Any]:
        approvals = {"approvals": [r.dict() for r in self.approvals]} if self.approvals else {}
        return {
            "type": "ActionStep",
            "step_number": self.step_number,
            "timing": self.timing.dict(),
            "model_input_messages": _messages(self.model_input_messages),
            "model_output_message": _message(self.model_output_message),
            "model_output": self.model_output,
            "code_action": self.code_action,
            "tool_calls": [c.dict() for c in self.tool_calls or []],
            "observations": self.observations,
            "error": self.error.dict() if self.error else None,
            "action_output": _plain(self.action_output),
            "token_usage": self.token_usage.dict() if self.token_usage else None,
            "is_final_answer": self.is_final_answer,
            **approvals,
        }


@dataclass
class PlanningStep(MemoryStep):
    """A plan (initial or updated) the model wrote."""

    model_input_messages: list[ChatMessage] = field(repr=False)
    model_output_message: ChatMessage
    plan: str
    timing: Timing = field(default_factory=Timing)
    token_usage: TokenUsage | None = None

    def to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        if summary_mode:
            return []
        return [
            _text(MessageRole.ASSISTANT, self.plan.strip()),
            _text(MessageRole.USER, "Now proceed and carry out this plan."),
        ]

    def dict(self) -> dict[str, Any]:
        return {
            "type": "PlanningStep",
            "model_input_messages": _messages(self.model_input_messages),
            "model_output_message": _message(self.model_output_message),
            "plan": self.plan,
            "timing": self.timing.dict(),
            "token_usage": self.token_usage.dict() if self.token_usage else None,
        }


@dataclass
class FinalAnswerStep:
    """The last stream event of a run: the answer."""

    output: Any


@dataclass
class RunResult:
    """What `run(..., return_full_result=True)` returns."""

    output: Any
    state: str  # "success", "max_steps_error", "interrupted" or "error"
    steps: list[dict[str, Any]]
    token_usage: TokenUsage
    timing: Timing
    error: AgentError | None = None

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The steps (smolagents' older name for `steps`)."""
        return self.steps

    def dict(self) -> dict[str, Any]:
        """The result as JSON-ready data."""
        return {
            "output": _plain(self.output),
            "state": self.state,
            "steps": self.steps,
            "token_usage": self.token_usage.dict() if self.token_usage else None,
            "timing": self.timing.dict(),
            "error": self.error.dict() if self.error else None,
        }


class AgentMemory:
    """The system prompt and the steps of the conversation so far."""

    def __init__(self, system_prompt: str):
        self.system_prompt = SystemPromptStep(system_prompt)
        self.steps = []

    @property
    def steps(self) -> list[MemoryStep]:
        """The steps, oldest first (a list that counts its changes, see `StepList`)."""
        return self._steps

    @steps.setter
    def steps(self, steps: list[MemoryStep]) -> None:
        self._steps = StepList(steps)

    def reset(self) -> None:
        self.steps = []

    def get_full_steps(self) -> list[dict[str, Any]]:
        """Each step as JSON-ready data, with the messages the model saw at that step."""
        return [step.dict() for step in self.steps]

    def get_succinct_steps(self) -> list[dict[str, Any]]:
        """Each step as JSON-ready data, without the messages the model saw."""
        return [
            {k: v for k, v in step.dict().items() if k != "model_input_messages"}
            for step in self.steps
        ]

    def token_usage(self) -> TokenUsage:
        total = TokenUsage()
        for step in self.steps:
            if isinstance(step, ActionStep | PlanningStep):  # the steps that call the model
                total = total + step.token_usage
        return total

    def replay(self, logger: Any, detailed: bool = False) -> None:
        """Write the steps again through `logger` (a `ConsoleLogger`/`AgentLogger`).

        Args:
            logger: Where to write.
            detailed: Also write the messages the model saw at each step.
        """
        from agents.observability.replay import replay_steps

        replay_steps(self.system_prompt, self.steps, logger, detailed)

    def return_full_code(self) -> str:
        """All code the agent ran, in order, as one script."""
        return "\n\n".join(
            step.code_action
            for step in self.steps
            if isinstance(step, ActionStep) and step.code_action
        )


def _text(role: MessageRole, text: str) -> ChatMessage:
    return ChatMessage(role=role.value, content=[{"type": "text", "text": text}])


def _messages(messages: list[ChatMessage] | None) -> list[dict[str, Any]] | None:
    """Messages as dicts (as smolagents' `get_full_steps` gives them), images as text."""
    return None if messages is None else [_message(m) for m in messages]


def _message(message: ChatMessage | None) -> dict[str, Any] | None:
    return None if message is None else _json_safe(message.dict())


def _json_safe(value: Any) -> Any:
    """A copy made of JSON types only: an image or other object becomes its `str`."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return str(value)


def _plain(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)
