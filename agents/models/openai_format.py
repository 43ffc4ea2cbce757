"""The OpenAI chat-completions wire format, read and written once for every backend that speaks it.

OpenAI, Azure, LiteLLM, huggingface_hub's `InferenceClient` and llama-cpp-python all answer
with the same shape (as pydantic objects, dataclasses or plain dicts); these functions turn
that shape into `ChatMessage` / `ChatMessageStreamDelta` and prepared messages into it.
"""

from __future__ import annotations

import json
from typing import Any

from agents.errors import ProviderServerError
from agents.models.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    TokenUsage,
    ToolCallFunction,
    ToolCallStreamDelta,
)
from agents.models.tool_call_text import new_call_id


def field(obj: Any, name: str, default: Any = None) -> Any:
    """Read `name` from a dict or an object; responses come as either."""
    if obj is None:
        return default
    value = obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)  # SDK
    return default if value is None else value


def to_wire_messages(messages: list[dict[str, Any]], images: bool = True) -> list[dict[str, Any]]:
    """Prepared messages -> OpenAI messages.

    Text-only content becomes one string (many servers and chat templates accept nothing
    else); content with images stays a list of blocks. Tool-call arguments become JSON text.

    Args:
        messages: Prepared messages.
        images: Keep image blocks; False drops them, for models that cannot see.
    """
    wire = []
    for message in messages:
        content = message.get("content")
        if not images and isinstance(content, list):
            content = [block for block in content if block.get("type") == "text"]
        entry: dict[str, Any] = {"role": message["role"], "content": _wire_content(content)}
        if message.get("tool_calls"):
            entry["tool_calls"] = [_wire_tool_call(call) for call in message["tool_calls"]]
        wire.append(entry)
    return wire


def _wire_content(content: Any) -> Any:
    if content is None or isinstance(content, str):
        return content
    if all(block.get("type") == "text" for block in content):
        return "\n".join(block.get("text", "") for block in content)
    return [block for block in content if block.get("type") in ("text", "image_url")]


def _wire_tool_call(call: dict[str, Any]) -> dict[str, Any]:
    function = call.get("function", {})
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments if arguments is not None else {}, default=str)
    return {
        "id": call.get("id"),
        "type": call.get("type", "function"),
        "function": {"name": function.get("name"), "arguments": arguments},
    }


def usage_from(usage: Any) -> TokenUsage | None:
    """`usage` of a response or chunk -> `TokenUsage` (None when the server sent none)."""
    if usage is None:
        return None
    prompt = field(usage, "prompt_tokens", field(usage, "input_tokens"))
    completion = field(usage, "completion_tokens", field(usage, "output_tokens"))
    if prompt is None and completion is None:
        return None
    return TokenUsage(int(prompt or 0), int(completion or 0))


def message_from_completion(response: Any) -> ChatMessage:
    """A chat-completion response -> the assistant `ChatMessage` (text, tool calls, usage).

    Raises:
        ProviderServerError: When the response holds no choice.
    """
    choices = field(response, "choices") or []
    if not choices:
        raise ProviderServerError(
            f"The model server answered without any choice: {response!r:.300}"
        )
    message = field(choices[0], "message")
    calls = [
        ChatMessageToolCall(
            function=ToolCallFunction(
                field(field(call, "function"), "name", ""),
                field(field(call, "function"), "arguments"),
            ),
            id=field(call, "id") or new_call_id(),
            type=field(call, "type", "function"),
        )
        for call in field(message, "tool_calls") or []
    ]
    return ChatMessage(
        role="assistant",
        content=field(message, "content", ""),
        tool_calls=calls or None,
        raw=response,
        token_usage=usage_from(field(response, "usage")),
    )


def delta_from_chunk(chunk: Any) -> ChatMessageStreamDelta | None:
    """One streamed chunk -> a delta, or None when it carries nothing (a role-only chunk)."""
    usage = usage_from(field(chunk, "usage"))
    choices = field(chunk, "choices") or []
    delta = field(choices[0], "delta") if choices else None
    content = field(delta, "content")
    tool_calls = [
        ToolCallStreamDelta(
            index=field(call, "index", position),
            id=field(call, "id"),
            type=field(call, "type"),
            function=ToolCallFunction(
                field(field(call, "function"), "name", ""),
                field(field(call, "function"), "arguments", ""),
            ),
        )
        for position, call in enumerate(field(delta, "tool_calls") or [])
    ]
    if not content and not tool_calls and usage is None:
        return None
    return ChatMessageStreamDelta(
        content=content or None, tool_calls=tool_calls or None, token_usage=usage
    )


def completion_params(
    model_id: str | None,
    messages: list[dict[str, Any]],
    stop_sequences: list[str] | None,
    response_format: dict[str, Any] | None,
    tools: list[dict[str, Any]] | None,
    max_stop_sequences: int | None = None,
    images: bool = True,
) -> dict[str, Any]:
    """The request parameters every OpenAI-style backend sends.

    Args:
        model_id: The `model` field; left out when None.
        messages: Prepared messages.
        stop_sequences: Sent as `stop`, capped at `max_stop_sequences` (OpenAI accepts 4;
            the base class still cuts the answer at every one of them).
        response_format: Sent as is.
        tools: Function schemas; sent only when given.
        max_stop_sequences: The server's limit, None for none.
        images: Send image blocks (False for models that cannot see).
    """
    params: dict[str, Any] = {"messages": to_wire_messages(messages, images)}
    if model_id:
        params["model"] = model_id
    if stop_sequences:
        params["stop"] = list(stop_sequences)[:max_stop_sequences]
    if response_format:
        params["response_format"] = response_format
    if tools:
        params["tools"] = tools
    return params
