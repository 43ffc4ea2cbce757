"""Chat messages, tool calls, token usage and stream deltas: the data every backend speaks."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class MessageRole(StrEnum):
    """Roles of the messages an agent sends to a model."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL_CALL = "tool-call"
    TOOL_RESPONSE = "tool-response"

    @classmethod
    def roles(cls) -> list[str]:
        return [r.value for r in cls]


@dataclass
class TokenUsage:
    """Tokens read and written by one model call (or summed over several)."""

    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: TokenUsage | None) -> TokenUsage:
        if other is None:
            return TokenUsage(self.input_tokens, self.output_tokens)
        return TokenUsage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )

    def dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
        }


@dataclass
class ToolCallFunction:
    """The function part of a tool call: a name and its arguments (dict or JSON string)."""

    name: str
    arguments: Any = None
    description: str | None = None


@dataclass
class ChatMessageToolCall:
    """One tool call requested by the model."""

    function: ToolCallFunction
    id: str = field(default_factory=lambda: f"call_{uuid.uuid4().hex[:12]}")
    type: str = "function"

    def dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "function": {"name": self.function.name, "arguments": self.function.arguments},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChatMessageToolCall:
        function = data.get("function", data)
        return cls(
            function=ToolCallFunction(function["name"], function.get("arguments")),
            id=data.get("id") or f"call_{uuid.uuid4().hex[:12]}",
            type=data.get("type", "function"),
        )


_CONVERTED = "_converted"
_converted_changes = [0]  # assignments to messages some model has converted already


def mark_converted(message: ChatMessage) -> None:
    """Count the message's changes in `converted_changes()` from now on."""
    message.__dict__[_CONVERTED] = True


def converted_changes() -> int:
    """How many times a message a model converted before was changed since (any message)."""
    return _converted_changes[0]


@dataclass
class ChatMessage:
    """A message from or to a model.

    Args:
        role: One of `MessageRole`.
        content: Text, or a list of content blocks (`{"type": "text"|"image", ...}`).
        tool_calls: Tool calls the model asked for.
        raw: The backend's own response object, for debugging.
        token_usage: Tokens used by the call that produced this message.
    """

    role: str
    content: str | list[dict[str, Any]] | None = None
    tool_calls: list[ChatMessageToolCall] | None = None
    raw: Any = None
    token_usage: TokenUsage | None = None

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if _CONVERTED in self.__dict__:  # a model may hold its conversion: tell it
            _converted_changes[0] += 1

    def __post_init__(self) -> None:
        if isinstance(self.role, MessageRole):
            self.role = self.role.value
        if self.tool_calls:
            # smolagents scripts build messages with OpenAI-style dicts as tool calls.
            self.tool_calls = [
                call
                if isinstance(call, ChatMessageToolCall)
                else ChatMessageToolCall.from_dict(call)
                for call in self.tool_calls
            ]

    def render_as_markdown(self) -> str:
        """The text, then one JSON line per tool call: how the message reads in a chat log."""
        lines = [self.text] if self.text else []
        lines += [
            json.dumps({"tool": c.function.name, "arguments": c.function.arguments}, default=str)
            for c in self.tool_calls or []
        ]
        return "\n".join(lines)

    @property
    def text(self) -> str:
        """The message's text content, images left out."""
        return content_text(self.content)

    def dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [tc.dict() for tc in self.tool_calls]
        if self.token_usage:
            data["token_usage"] = self.token_usage.dict()
        return data

    def model_dump_json(self) -> str:
        return json.dumps(self.dict(), default=str)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChatMessage:
        tool_calls = data.get("tool_calls")
        usage = data.get("token_usage")
        return cls(
            role=data["role"],
            content=data.get("content"),
            tool_calls=[ChatMessageToolCall.from_dict(tc) for tc in tool_calls]
            if tool_calls
            else None,
            token_usage=TokenUsage(usage["input_tokens"], usage["output_tokens"])
            if usage
            else None,
        )


@dataclass
class ToolCallStreamDelta:
    """A fragment of a streamed tool call; fragments with the same index are joined."""

    index: int | None = None
    id: str | None = None
    type: str | None = None
    function: ToolCallFunction | None = None


# smolagents' names for the same classes.
ChatMessageToolCallFunction = ToolCallFunction
ChatMessageToolCallStreamDelta = ToolCallStreamDelta


@dataclass
class ChatMessageStreamDelta:
    """One piece of a streamed model answer."""

    content: str | None = None
    tool_calls: list[ToolCallStreamDelta] | None = None
    token_usage: TokenUsage | None = None


def content_text(content: Any) -> str:
    """Join the text blocks of a message content (a string is returned as is)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(block.get("text", ""))
    return "\n".join(parts)


def agglomerate_stream_deltas(
    deltas: list[ChatMessageStreamDelta], role: str = MessageRole.ASSISTANT.value
) -> ChatMessage:
    """Assemble streamed deltas into one `ChatMessage` (text, tool calls, token usage)."""
    text_parts: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    usage = TokenUsage()
    for delta in deltas:
        if delta.content:
            text_parts.append(delta.content)
        if delta.token_usage:
            usage = usage + delta.token_usage
        for tc in delta.tool_calls or []:
            slot = calls.setdefault(
                tc.index if tc.index is not None else len(calls),
                {"id": None, "type": "function", "name": "", "arguments": ""},
            )
            slot["id"] = tc.id or slot["id"]
            slot["type"] = tc.type or slot["type"]
            if tc.function:
                slot["name"] += tc.function.name or ""
                args = tc.function.arguments
                if isinstance(args, dict):
                    slot["arguments"] = args
                elif args:
                    slot["arguments"] += args
    tool_calls = [
        ChatMessageToolCall(
            function=ToolCallFunction(slot["name"], slot["arguments"]),
            id=slot["id"] or f"call_{uuid.uuid4().hex[:12]}",
            type=slot["type"],
        )
        for _, slot in sorted(calls.items())
    ]
    return ChatMessage(
        role=role,
        content="".join(text_parts),
        tool_calls=tool_calls or None,
        token_usage=usage,
    )
