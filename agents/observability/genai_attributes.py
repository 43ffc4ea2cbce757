"""OpenTelemetry GenAI attribute values for the tracing seam: model names, systems, answers.

Pure functions of the loop's objects; `agents.observability.tracing` puts their results on spans.
"""

from __future__ import annotations

import json
from typing import Any

from agents.models.messages import ChatMessage

MAX_CONTENT_CHARS = 16_000


def model_name(model: Any) -> str:
    """The model's id for span names (its class name when it has none).

    Args:
        model: The agent's model (an `AgentModel`).
    """
    return str(model.model_id or type(model).__name__)


_SYSTEMS = {
    "OpenAIServerModel": "openai",
    "AzureOpenAIServerModel": "azure.ai.openai",
    "InferenceClientModel": "huggingface",
    "HfApiModel": "huggingface",
    "LiteLLMModel": "litellm",
    "LlamaCppModel": "llama_cpp",
    "TransformersModel": "transformers",
    "ScriptedModel": "scripted",
}


def model_system(model: Any) -> str:
    """The `gen_ai.system` value for a model backend (its lowercased class name if unknown).

    Args:
        model: The model.
    """
    name = type(model).__name__
    return _SYSTEMS.get(name, name.lower())


def answer_attributes(answer: Any, content: bool) -> dict[str, Any]:
    """Finish reason, token usage and (with `content`) the output of a model answer."""
    attributes: dict[str, Any] = {"gen_ai.response.finish_reasons": [finish_reason(answer)]}
    usage = answer.token_usage
    if usage is not None:
        attributes["gen_ai.usage.input_tokens"] = usage.input_tokens
        attributes["gen_ai.usage.output_tokens"] = usage.output_tokens
    if content:
        attributes["gen_ai.output.messages"] = messages_json([answer])
    return attributes


def finish_reason(answer: Any) -> str:
    """The backend's finish reason when its raw response carries one (OpenAI shape)."""
    raw = answer.raw  # the provider's own response: a dict or its client's object
    choices = raw.get("choices") if isinstance(raw, dict) else getattr(raw, "choices", None)  # SDK
    if isinstance(choices, list) and choices:
        first = choices[0]
        reason = first.get("finish_reason") if isinstance(first, dict) else None
        reason = reason or getattr(first, "finish_reason", None)  # the provider's object
        if isinstance(reason, str) and reason:
            return reason
    return "tool_calls" if answer.tool_calls else "stop"


def messages_json(messages: list[Any]) -> str:
    """Chat messages as clipped JSON (for `gen_ai.input.messages`/`output.messages`)."""
    data = [m.dict() if isinstance(m, ChatMessage) else m for m in messages]
    return clip(json.dumps(data, default=str))


def clip(value: Any) -> str:
    """Text (or JSON for other values) cut to `MAX_CONTENT_CHARS`."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    if len(text) <= MAX_CONTENT_CHARS:
        return text
    return text[:MAX_CONTENT_CHARS] + f"... [{len(text) - MAX_CONTENT_CHARS} more characters]"
