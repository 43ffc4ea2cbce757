"""Agent memory as plain data: steps to JSON-ready dicts and back (never pickle).

A conversation store keeps an agent's memory between processes with these two functions:
`steps_to_data` before saving, `steps_from_data` when a fresh agent resumes the conversation.
What cannot be data is written down as what the model saw of it: an action's output that is
not JSON becomes its repr, an error becomes its class name and message. The messages each
step sent to the model (`model_input_messages`) are not kept: they are rebuilt from memory.
Images go through an `ImageStore` (files in a folder by default), never into the data.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from agents import errors
from agents.memory.approvals import ApprovalRecord
from agents.memory.steps import (
    ActionStep,
    FinalAnswerStep,
    MemoryStep,
    PlanningStep,
    SystemPromptStep,
    TaskStep,
    Timing,
    ToolCall,
)
from agents.models.messages import ChatMessage, TokenUsage

FORMAT_VERSION = 1
# The file name `FolderImageStore` gives an image: the start of its PNG bytes' sha256.
_IMAGE_NAME = re.compile(r"^[0-9a-f]{32}\.png$")


class MemoryFormatError(ValueError):
    """Stored memory could not be read back (unknown step type, missing field, bad shape)."""


class ImageStore(Protocol):
    """Where images in memory go: `put` returns a reference that `get` turns back into an image."""

    def put(self, image: Any) -> str: ...

    def get(self, reference: str) -> Any: ...


def is_image_name(name: str) -> bool:
    """Whether `name` is a file name `FolderImageStore` gives an image (a plain name, no path).

    Args:
        name: A file name, or any string found in stored memory.
    """
    return _IMAGE_NAME.match(name) is not None


class FolderImageStore:
    """Keeps images as PNG files named by their content's sha256 (so a resave writes nothing).

    Args:
        folder: Where the files go; created on the first image.
    """

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)

    def put(self, image: Any) -> str:
        """Write `image` (a PIL image) as PNG; returns its file name.

        Args:
            image: A PIL image.
        """
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        data = buffer.getvalue()
        name = hashlib.sha256(data).hexdigest()[:32] + ".png"
        path = self.folder / name
        if not path.exists():
            self.folder.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return name

    def get(self, reference: str) -> Any:
        """The PIL image saved under `reference`.

        Args:
            reference: A name returned by `put`.

        Raises:
            MemoryFormatError: The reference is not a file name of this store, or the file is gone.
        """
        from PIL import Image

        if not is_image_name(reference):
            raise MemoryFormatError(f"not an image reference: {reference!r}")
        try:
            with Image.open(self.folder / reference) as image:
                return image.copy()
        except OSError as error:
            raise MemoryFormatError(f"image {reference} could not be read: {error}") from None


def steps_to_data(steps: Iterable[Any], images: ImageStore | None = None) -> dict[str, Any]:
    """Memory steps as a JSON-ready dict `{"version", "steps"}`.

    Args:
        steps: `agent.memory.steps` (TaskStep, ActionStep, PlanningStep, SystemPromptStep,
            FinalAnswerStep).
        images: Where images go; without one, images are left out.
    """
    return {"version": FORMAT_VERSION, "steps": [_step_to_data(s, images) for s in steps]}


def steps_from_data(data: Any, images: ImageStore | None = None) -> list[Any]:
    """Memory steps rebuilt from `steps_to_data` output.

    Args:
        data: What `steps_to_data` returned (after a JSON round trip).
        images: Where images were put; without one, images are left out.

    Raises:
        MemoryFormatError: The data is not memory this version can read.
    """
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise MemoryFormatError("memory data must be a dict with a 'steps' list")
    if data.get("version") != FORMAT_VERSION:
        raise MemoryFormatError(f"unknown memory format version {data.get('version')!r}")
    try:
        return [_step_from_data(item, images) for item in data["steps"]]
    except (KeyError, TypeError, AttributeError) as error:
        raise MemoryFormatError(f"a stored memory step is malformed: {error!r}") from None


def _step_to_data(step: Any, images: ImageStore | None) -> dict[str, Any]:
    if isinstance(step, TaskStep):
        return {
            "type": "TaskStep",
            "task": step.task,
            "images": _put_images(step.task_images, images),
        }
    if isinstance(step, ActionStep):
        return _action_to_data(step, images)
    if isinstance(step, PlanningStep):
        return {
            "type": "PlanningStep",
            "plan": step.plan,
            "model_output_message": _message_to_data(step.model_output_message),
            "timing": _timing_to_data(step.timing),
            "token_usage": _usage_to_data(step.token_usage),
        }
    if isinstance(step, SystemPromptStep):
        return {"type": "SystemPromptStep", "system_prompt": step.system_prompt}
    if isinstance(step, FinalAnswerStep):
        return {"type": "FinalAnswerStep", "output": _plain(step.output)}
    raise MemoryFormatError(f"cannot store a memory step of type {type(step).__name__}")


def _action_to_data(step: ActionStep, images: ImageStore | None) -> dict[str, Any]:
    approvals = {"approvals": [r.dict() for r in step.approvals]} if step.approvals else {}
    return {
        "type": "ActionStep",
        "step_number": step.step_number,
        "timing": _timing_to_data(step.timing),
        "tool_calls": [
            {"id": c.id, "name": c.name, "arguments": _plain(c.arguments)}
            for c in step.tool_calls or []
        ],
        "error": _error_to_data(step.error),
        "model_output_message": _message_to_data(step.model_output_message),
        "model_output": step.model_output,
        "code_action": step.code_action,
        "observations": step.observations,
        "observations_images": _put_images(step.observations_images, images),
        "action_output": _plain(step.action_output),
        "token_usage": _usage_to_data(step.token_usage),
        "is_final_answer": step.is_final_answer,
        **approvals,
    }


def _step_from_data(item: dict[str, Any], images: ImageStore | None) -> MemoryStep | Any:
    kind = item["type"]
    if kind == "TaskStep":
        return TaskStep(task=item["task"], task_images=_get_images(item.get("images"), images))
    if kind == "ActionStep":
        return ActionStep(
            step_number=int(item["step_number"]),
            timing=_timing_from_data(item.get("timing")),
            tool_calls=[
                ToolCall(c["name"], c.get("arguments"), c["id"])
                for c in item.get("tool_calls") or []
            ]
            or None,
            error=_error_from_data(item.get("error")),
            model_output_message=_message_from_data(item.get("model_output_message")),
            model_output=item.get("model_output"),
            code_action=item.get("code_action"),
            observations=item.get("observations"),
            observations_images=_get_images(item.get("observations_images"), images),
            action_output=item.get("action_output"),
            token_usage=_usage_from_data(item.get("token_usage")),
            is_final_answer=bool(item.get("is_final_answer")),
            approvals=[ApprovalRecord.from_dict(r) for r in item.get("approvals") or []] or None,
        )
    if kind == "PlanningStep":
        return PlanningStep(
            model_input_messages=[],
            model_output_message=_message_from_data(item.get("model_output_message"))
            or ChatMessage(role="assistant", content=item["plan"]),
            plan=item["plan"],
            timing=_timing_from_data(item.get("timing")),
            token_usage=_usage_from_data(item.get("token_usage")),
        )
    if kind == "SystemPromptStep":
        return SystemPromptStep(item["system_prompt"])
    if kind == "FinalAnswerStep":
        return FinalAnswerStep(output=item.get("output"))
    raise MemoryFormatError(f"unknown memory step type {kind!r}")


def _timing_to_data(timing: Timing) -> dict[str, float | None]:
    return {"start_time": timing.start_time, "end_time": timing.end_time}


def _timing_from_data(data: Any) -> Timing:
    if not isinstance(data, dict):
        return Timing()
    return Timing(start_time=float(data["start_time"]), end_time=data.get("end_time"))


def _usage_to_data(usage: TokenUsage | None) -> dict[str, int] | None:
    return (
        None
        if usage is None
        else {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}
    )


def _usage_from_data(data: Any) -> TokenUsage | None:
    if not isinstance(data, dict):
        return None
    return TokenUsage(int(data["input_tokens"]), int(data["output_tokens"]))


def _message_to_data(message: ChatMessage | None) -> dict[str, Any] | None:
    if message is None:
        return None
    data = message.dict()
    if isinstance(data.get("content"), list):  # images a model wrote are not kept
        data["content"] = [b for b in data["content"] if b.get("type") == "text"]
    return json.loads(json.dumps(data, default=repr))


def _message_from_data(data: Any) -> ChatMessage | None:
    return ChatMessage.from_dict(data) if isinstance(data, dict) else None


def _error_to_data(error: errors.AgentError | None) -> dict[str, Any] | None:
    if error is None:
        return None
    data: dict[str, Any] = {"type": type(error).__name__, "message": error.message}
    if isinstance(error, errors.AgentExecutionError):
        data.update(logs=error.logs, state_lost=error.state_lost)
    return data


def _error_from_data(data: Any) -> errors.AgentError | None:
    if not isinstance(data, dict):
        return None
    cls = getattr(errors, str(data.get("type")), None)  # a class of the module, by stored name
    message = str(data.get("message", ""))
    if cls is errors.AgentExecutionError:
        return cls(message, logs=str(data.get("logs", "")), state_lost=bool(data.get("state_lost")))
    if isinstance(cls, type) and issubclass(cls, errors.AgentError):
        return cls(message)
    return errors.AgentError(message)


def _put_images(values: list[Any] | None, images: ImageStore | None) -> list[str]:
    if not values or images is None:
        return []
    from tools.agent_types import raw_image

    return [images.put(raw_image(value)) for value in values]


def _get_images(references: Any, images: ImageStore | None) -> list[Any] | None:
    if not references or images is None:
        return None
    return [images.get(str(reference)) for reference in references]


def _plain(value: Any) -> Any:
    """`value` if it survives JSON unchanged in kind, else its repr (what the model saw)."""
    try:
        json.dumps(value, allow_nan=False)
        return value
    except (TypeError, ValueError):
        return repr(value)
