"""The `Model` base class: what every backend shares.

A backend only translates wire formats. It implements `_generate` (and, if it can stream,
`_generate_stream`); this class converts messages once, retries transient provider errors,
assembles streams, cuts stop sequences and parses tool calls out of text for backends with
no native tool calling.
"""

from __future__ import annotations

import base64
import io
import json
import re
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from agents.errors import AgentParsingError, ModelProviderError
from agents.models.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    MessageRole,
    TokenUsage,
    ToolCallFunction,
    agglomerate_stream_deltas,
    content_text,
)

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
    # Whether `generate(..., grammar="<GBNF text>")` constrains decoding (llama.cpp does).
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
            lambda: _started(
                self._generate_stream(prepared, stop_sequences, response_format, tools, **kwargs)
            )
        )
        yield from _cut_stream_at_stops(stream, stop_sequences)

    def __call__(self, messages: list[ChatMessage | dict[str, Any]], **kwargs: Any) -> ChatMessage:
        return self.generate(messages, **kwargs)

    def stream_and_assemble(
        self, messages: list[ChatMessage | dict[str, Any]], on_delta: Callable, **kwargs: Any
    ) -> ChatMessage:
        """Stream, hand each delta to `on_delta`, and return the assembled message."""
        deltas = []
        for delta in self.generate_stream(messages, **kwargs):
            deltas.append(delta)
            on_delta(delta)
        message = agglomerate_stream_deltas(deltas)
        self.last_token_usage = message.token_usage
        return message

    # -- shared helpers ------------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        """Tokens in `text`; backends with a tokenizer override this estimate."""
        return max(1, len(text) // 4) if text else 0

    def prepare_messages(self, messages: list[ChatMessage | dict[str, Any]]) -> list[dict]:
        """Convert messages to plain dicts: roles mapped, same-role runs merged, images encoded."""
        conversions = {**DEFAULT_ROLE_CONVERSIONS, **self.custom_role_conversions}
        out: list[dict[str, Any]] = []
        for message in messages:
            data = message.dict() if isinstance(message, ChatMessage) else dict(message)
            role = data["role"].value if isinstance(data["role"], MessageRole) else data["role"]
            role = conversions.get(role, role)
            blocks = self._content_blocks(data.get("content"))
            if out and out[-1]["role"] == role and not data.get("tool_calls"):
                out[-1]["content"].extend(blocks)
                continue
            entry: dict[str, Any] = {"role": role, "content": blocks}
            if data.get("tool_calls"):
                entry["tool_calls"] = data["tool_calls"]
            out.append(entry)
        if self.flatten_messages_as_text:
            for entry in out:
                entry["content"] = content_text(entry["content"])
        return out

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


def cut_stop_sequences(content: Any, stop_sequences: list[str] | None) -> Any:
    """Cut text at the first stop sequence, for backends that return it."""
    if not isinstance(content, str) or not stop_sequences:
        return content
    cut = len(content)
    for stop in stop_sequences:
        index = content.find(stop)
        if index != -1:
            cut = min(cut, index)
    return content[:cut]


def _started(stream: Iterator[ChatMessageStreamDelta]) -> Iterator[ChatMessageStreamDelta]:
    """Pull the first delta now, so connection errors happen inside the retry loop."""
    first = next(stream, None)

    def chained() -> Iterator[ChatMessageStreamDelta]:
        if first is not None:
            yield first
        yield from stream

    return chained()


def _cut_stream_at_stops(
    stream: Iterator[ChatMessageStreamDelta], stop_sequences: list[str] | None
) -> Iterator[ChatMessageStreamDelta]:
    """Stop a stream at the first stop sequence, holding back text that may start one."""
    if not stop_sequences:
        yield from stream
        return
    longest = max(len(s) for s in stop_sequences)
    pending = ""
    for delta in stream:
        if not delta.content:
            yield delta
            continue
        pending += delta.content
        cut = cut_stop_sequences(pending, stop_sequences)
        if len(cut) < len(pending):
            if cut or delta.token_usage:
                yield ChatMessageStreamDelta(content=cut or None, token_usage=delta.token_usage)
            # Keep reading only for the usage report that backends send last.
            for rest in stream:
                if rest.token_usage:
                    yield ChatMessageStreamDelta(token_usage=rest.token_usage)
            return
        safe = len(pending) - (longest - 1)
        if safe > 0:
            yield ChatMessageStreamDelta(
                content=pending[:safe], tool_calls=delta.tool_calls, token_usage=delta.token_usage
            )
            pending = pending[safe:]
        elif delta.token_usage or delta.tool_calls:
            yield ChatMessageStreamDelta(tool_calls=delta.tool_calls, token_usage=delta.token_usage)
    if pending:
        yield ChatMessageStreamDelta(content=pending)


_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def parse_json_tool_call(text: str) -> tuple[str, Any]:
    """Find a `{"name": ..., "arguments": ...}` object in free text.

    Raises:
        AgentParsingError: When the text holds no such object (a model mistake).
    """
    for candidate in _json_candidates(text):
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and "name" in data:
            arguments = data.get("arguments", data.get("parameters", {}))
            return str(data["name"]), arguments
    raise AgentParsingError(
        "Your answer held no tool call. Answer with a JSON object like "
        '{"name": "tool_name", "arguments": {"arg": "value"}}. Your answer was:\n' + text[:2000]
    )


def _json_candidates(text: str) -> Iterator[str]:
    fenced = re.findall(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.DOTALL)
    yield from fenced
    starts = [m.start() for m in re.finditer(r"\{", text)]
    for start in starts:
        depth, in_string, escaped = 0, False, False
        for index in range(start, len(text)):
            char = text[index]
            if in_string:
                escaped = (char == "\\") and not escaped
                if char == '"' and not escaped:
                    in_string = False
                continue
            if char == '"':
                in_string = True
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    yield text[start : index + 1]
                    break


def parse_arguments(arguments: Any) -> Any:
    """Tool arguments arrive as a dict or a JSON string; return a dict where possible."""
    if isinstance(arguments, str):
        stripped = arguments.strip()
        if not stripped:
            return {}
        try:
            return json.loads(stripped)
        except json.JSONDecodeError:
            return arguments
    return {} if arguments is None else arguments


def image_data_url(image: Any) -> str:
    """A PIL image (or PNG/JPEG bytes, or a path) as a base64 data URL."""
    if isinstance(image, str) and image.startswith("data:"):
        return image
    if isinstance(image, (bytes, bytearray)):
        data = bytes(image)
    elif isinstance(image, str):
        with open(image, "rb") as handle:
            data = handle.read()
    else:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        data = buffer.getvalue()
    mime = "image/jpeg" if data[:3] == b"\xff\xd8\xff" else "image/png"
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False
