"""The `Model` base class: what every backend shares.

A backend only translates wire formats. It implements `_generate` (and, if it can stream,
`_generate_stream`); this class converts messages once, retries transient provider errors,
assembles streams, cuts stop sequences and parses tool calls out of text for backends with
no native tool calling.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from agents.errors import ModelProviderError
from agents.models.converted import ConvertedPrefix
from agents.models.images import image_data_url
from agents.models.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    MessageRole,
    TokenUsage,
    ToolCallFunction,
    content_text,
)
from agents.models.stop_sequences import cut_stop_sequences, cut_stream_at_stops, started
from agents.models.tool_call_text import parse_arguments, parse_json_tool_call

# Roles most chat APIs do not know, mapped to ones they do.
DEFAULT_ROLE_CONVERSIONS = {
    MessageRole.TOOL_CALL.value: MessageRole.ASSISTANT.value,
    MessageRole.TOOL_RESPONSE.value: MessageRole.USER.value,
}


class Model:
    """Base class of model backends.

    Args:
        model_id: The backend's model identifier.
        custom_role_conversions: Extra role mapping, e.g. `{"system": "user"}` for models
            without a system role.
        flatten_messages_as_text: Send content as one string instead of content blocks.
        max_retries: How often a transient provider error is retried.
        retry_delay: First backoff delay in seconds (doubled at each retry).
        context_size: The model's context window in tokens, when known.
        **kwargs: Extra parameters passed to every completion call (temperature, ...).
    """

    supports_images = False
    native_tool_calls = False
    # Declared here too, so a subclass that skips `__init__` still has what the agent reads.
    model_id: str | None = None
    context_size: int | None = None
    # Whether `generate(..., grammar=...)` constrains decoding: llama.cpp takes GBNF text or a
    # JSON schema (dict) for the reply.
    supports_grammar = False

    def __init__(
        self,
        model_id: str | None = None,
        custom_role_conversions: dict[str, str] | None = None,
        flatten_messages_as_text: bool = False,
        max_retries: int = 3,
        retry_delay: float = 1.0,
        context_size: int | None = None,
        **kwargs: Any,
    ):
        self.model_id = model_id
        self.custom_role_conversions = custom_role_conversions or {}
        self.flatten_messages_as_text = flatten_messages_as_text
        self.max_retries = max_retries
        self.retry_delay = retry_delay
        self.context_size = context_size
        self.kwargs = kwargs
        self.last_token_usage: TokenUsage | None = None
        self._converted = ConvertedPrefix()

    # -- what a backend implements -------------------------------------------------------

    def _generate(
        self,
        messages: list[dict[str, Any]],
        stop_sequences: list[str] | None,
        response_format: dict[str, Any] | None,
        tools: list[dict[str, Any]] | None,
        **kwargs: Any,
    ) -> ChatMessage:
        raise NotImplementedError(f"{type(self).__name__} must implement _generate or generate")

    def _generate_stream(
        self,
        messages: list[dict[str, Any]],
        stop_sequences: list[str] | None,
        response_format: dict[str, Any] | None,
        tools: list[dict[str, Any]] | None,
        **kwargs: Any,
    ) -> Iterator[ChatMessageStreamDelta]:
        message = self._generate(messages, stop_sequences, response_format, tools, **kwargs)
        yield ChatMessageStreamDelta(
            content=message.text, tool_calls=None, token_usage=message.token_usage
        )

    # -- the public API ------------------------------------------------------------------

    def generate(
        self,
        messages: list[ChatMessage | dict[str, Any]],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> ChatMessage:
        """Answer a conversation with one message.

        Args:
            messages: The conversation, as `ChatMessage`s or dicts.
            stop_sequences: Strings at which generation stops (not included in the answer).
            response_format: A JSON-schema response format, where the backend supports it.
            tools_to_call_from: Tools the model may call natively.
        """
        prepared = self.prepare_messages(messages)
        tools = tool_schemas(tools_to_call_from)
        message = self._with_retries(
            lambda: self._generate(prepared, stop_sequences, response_format, tools, **kwargs)
        )
        message.content = cut_stop_sequences(message.content, stop_sequences)
        self.last_token_usage = message.token_usage
        return message

    def generate_stream(
        self,
        messages: list[ChatMessage | dict[str, Any]],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatMessageStreamDelta]:
        """Stream the answer as deltas; `agglomerate_stream_deltas` joins them."""
        prepared = self.prepare_messages(messages)
        tools = tool_schemas(tools_to_call_from)
        stream = self._with_retries(
            lambda: started(
                self._generate_stream(prepared, stop_sequences, response_format, tools, **kwargs)
            )
        )
        yield from cut_stream_at_stops(stream, stop_sequences)

    def __call__(self, messages: list[ChatMessage | dict[str, Any]], **kwargs: Any) -> ChatMessage:
        return self.generate(messages, **kwargs)

    # -- shared helpers ------------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        """Tokens in `text`; backends with a tokenizer override this estimate."""
        return max(1, len(text) // 4) if text else 0

    def prepare_messages(self, messages: list[ChatMessage | dict[str, Any]]) -> list[dict]:
        """Convert messages to plain dicts: roles mapped, same-role runs merged, images encoded."""
        conversions = {**DEFAULT_ROLE_CONVERSIONS, **self.custom_role_conversions}
        reused, out = self._converted.reuse(messages)
        for message in messages[reused:]:
            if isinstance(message, ChatMessage):
                role, content = message.role, message.content
                calls = [c.dict() for c in message.tool_calls] if message.tool_calls else None
            else:
                role, content, calls = (
                    message["role"],
                    message.get("content"),
                    message.get("tool_calls"),
                )
            role = role.value if isinstance(role, MessageRole) else role
            role = conversions.get(role, role)
            blocks = self._content_blocks(content)
            if out and out[-1]["role"] == role and not calls:
                out[-1]["content"].extend(blocks)
                continue
            entry: dict[str, Any] = {"role": role, "content": blocks}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
        self._converted.remember(messages, reused, out)
        if self.flatten_messages_as_text:
            return [{**entry, "content": content_text(entry["content"])} for entry in out]
        return list(out)

    def _content_blocks(self, content: Any) -> list[dict[str, Any]]:
        if content is None:
            return []
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        blocks = []
        for block in content:
            if block.get("type") == "image":
                blocks.append(self.image_block(block["image"]))
            else:
                blocks.append(dict(block))
        return blocks

    def image_block(self, image: Any) -> dict[str, Any]:
        """Encode an image for the wire; OpenAI's data-URL format unless overridden."""
        return {"type": "image_url", "image_url": {"url": image_data_url(image)}}

    def _with_retries(self, call: Callable[[], Any]) -> Any:
        delay = self.retry_delay
        for attempt in range(self.max_retries + 1):
            try:
                return call()
            except ModelProviderError as err:
                if not err.retryable or attempt == self.max_retries:
                    raise
                time.sleep(delay)
                delay *= 2
        raise AssertionError("unreachable")

    def parse_tool_calls(self, message: ChatMessage) -> ChatMessage:
        """Make sure `message.tool_calls` is set, parsing it from the text if needed."""
        if not message.tool_calls:
            name, arguments = parse_json_tool_call(message.text)
            message.tool_calls = [ChatMessageToolCall(ToolCallFunction(name, arguments))]
        for call in message.tool_calls:
            call.function.arguments = parse_arguments(call.function.arguments)
        return message

    def to_dict(self) -> dict[str, Any]:
        """The model's settings as JSON-ready data (secrets such as tokens left out)."""
        data = {"class": type(self).__name__, "model_id": self.model_id}
        data.update({k: v for k, v in self.kwargs.items() if _jsonable(v)})
        return data

    @classmethod
    def from_dict(cls, model_dictionary: dict[str, Any]) -> Model:
        """Rebuild a model from `to_dict()` (or smolagents' `Model.to_dict()`) output.

        Args:
            model_dictionary: The settings; "class" and token counters are ignored.
        """
        ignored = ("class", "last_input_token_count", "last_output_token_count")
        return cls(**{k: v for k, v in model_dictionary.items() if k not in ignored})

    @property
    def last_input_token_count(self) -> int | None:
        """Input tokens of the last call (smolagents' older counter)."""
        return self.last_token_usage.input_tokens if self.last_token_usage else None

    @property
    def last_output_token_count(self) -> int | None:
        """Output tokens of the last call (smolagents' older counter)."""
        return self.last_token_usage.output_tokens if self.last_token_usage else None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_id={self.model_id!r})"


def tool_schemas(tools: list[Any] | None) -> list[dict[str, Any]] | None:
    """OpenAI-style function schemas for tools (anything with `to_tool_schema`) or dicts."""
    if not tools:
        return None
    return [t if isinstance(t, dict) else t.to_tool_schema() for t in tools]


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False
