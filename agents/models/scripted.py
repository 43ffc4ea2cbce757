"""`ScriptedModel`: replays a queue of replies. For tests and offline demos, never a real path."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from agents.errors import ModelProviderError
from agents.models.base import Model
from agents.models.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCall,
    TokenUsage,
    ToolCallFunction,
    ToolCallStreamDelta,
    content_text,
)
from agents.models.tool_call_text import new_call_id


@dataclass
class ScriptedReply:
    """One scripted answer.

    Args:
        content: The text the model "writes".
        tool_calls: `(name, arguments)` pairs the model "calls" natively.
        delay: Seconds to wait before answering (simulates latency).
        chunk_size: Stream the text in pieces of this many characters.
        error: An exception to raise instead of answering.
        reached: Set when the model call begins (a test waits on it to act mid-call).
        gate: The call answers only once this is set (a test holds a step open with it,
            instead of a long delay); given up after `GATE_TIMEOUT_S`, so nothing hangs.
    """

    content: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)
    delay: float = 0.0
    chunk_size: int | None = None
    error: Exception | None = None
    reached: threading.Event | None = None
    gate: threading.Event | None = None


Reply = str | ChatMessage | ScriptedReply | Callable[[list[dict[str, Any]]], Any]


# A gated reply never waits longer than this: a test that forgets its gate fails, not hangs.
GATE_TIMEOUT_S = 300.0


class ScriptExhaustedError(ModelProviderError):
    """The script has no reply left."""


class ScriptedModel(Model):
    """A model that answers from a list, in order.

    Args:
        replies: Strings, `ScriptedReply`s, `ChatMessage`s, or callables taking the prepared
            messages and returning one of those.
        delay: Default seconds to wait before each reply.
        chunk_size: Default stream piece size in characters (default: about a word).
        piece_delay: Seconds between streamed pieces, as a model generating tokens.
        loop: Start again from the first reply when the script runs out.
        model_id: Name shown in the UI.
    """

    supports_images = True
    native_tool_calls = True

    def __init__(
        self,
        replies: list[Reply] | None = None,
        delay: float = 0.0,
        chunk_size: int | None = None,
        piece_delay: float = 0.0,
        loop: bool = False,
        model_id: str = "scripted",
        **kwargs: Any,
    ):
        kwargs.setdefault("max_retries", 0)
        super().__init__(model_id=model_id, **kwargs)
        self.replies = list(replies or [])
        self.delay = delay
        self.chunk_size = chunk_size
        self.piece_delay = piece_delay
        self.loop = loop
        self.calls: list[list[dict[str, Any]]] = []
        self.call_kwargs: list[dict[str, Any]] = []
        self._cursor = 0
        self._lock = threading.Lock()

    def add(self, *replies: Reply) -> None:
        """Append replies to the script."""
        self.replies.extend(replies)

    @property
    def remaining(self) -> int:
        return len(self.replies) - self._cursor

    def _next(self, messages: list[dict[str, Any]], kwargs: dict[str, Any]) -> ScriptedReply:
        with self._lock:
            self.calls.append(messages)
            self.call_kwargs.append(kwargs)
            if self._cursor >= len(self.replies):
                if not (self.loop and self.replies):
                    raise ScriptExhaustedError(
                        f"ScriptedModel has no reply left after {len(self.replies)} replies."
                    )
                self._cursor = 0
            reply = self.replies[self._cursor]
            self._cursor += 1
        if callable(reply) and not isinstance(reply, (ChatMessage, ScriptedReply)):
            reply = reply(messages)
        return _as_scripted(reply, self.delay)

    def _wait(self, reply: ScriptedReply) -> None:
        if reply.reached is not None:
            reply.reached.set()
        if reply.gate is not None:
            reply.gate.wait(GATE_TIMEOUT_S)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.error:
            raise reply.error

    def _usage(self, messages: list[dict[str, Any]], reply: ScriptedReply) -> TokenUsage:
        prompt = "".join(content_text(m.get("content")) for m in messages)
        output = reply.content + "".join(json.dumps(a, default=str) for _, a in reply.tool_calls)
        return TokenUsage(self.count_tokens(prompt), self.count_tokens(output))

    def _generate(self, messages, stop_sequences, response_format, tools, **kwargs):
        reply = self._next(messages, _call_info(stop_sequences, response_format, tools, kwargs))
        self._wait(reply)
        calls = [
            ChatMessageToolCall(ToolCallFunction(n, a), new_call_id()) for n, a in reply.tool_calls
        ]
        return ChatMessage(
            role="assistant",
            content=reply.content,
            tool_calls=calls or None,
            token_usage=self._usage(messages, reply),
        )

    def _generate_stream(
        self, messages, stop_sequences, response_format, tools, **kwargs
    ) -> Iterator[ChatMessageStreamDelta]:
        reply = self._next(messages, _call_info(stop_sequences, response_format, tools, kwargs))
        self._wait(reply)
        size = reply.chunk_size or self.chunk_size
        for index, piece in enumerate(_pieces(reply.content, size)):
            if index and self.piece_delay:
                time.sleep(self.piece_delay)
            yield ChatMessageStreamDelta(content=piece)
        for index, (name, arguments) in enumerate(reply.tool_calls):
            function = ToolCallFunction(name, json.dumps(arguments, default=str))
            yield ChatMessageStreamDelta(
                tool_calls=[ToolCallStreamDelta(index, new_call_id(), "function", function)]
            )
        yield ChatMessageStreamDelta(token_usage=self._usage(messages, reply))


def _call_info(stop_sequences, response_format, tools, kwargs) -> dict[str, Any]:
    return {
        "stop_sequences": stop_sequences,
        "response_format": response_format,
        "tools": tools,
        **kwargs,
    }


def _as_scripted(reply: Any, default_delay: float) -> ScriptedReply:
    if isinstance(reply, ScriptedReply):
        if not reply.delay and default_delay:
            return dataclasses.replace(reply, delay=default_delay)
        return reply
    if isinstance(reply, ChatMessage):
        calls = [(c.function.name, c.function.arguments) for c in reply.tool_calls or []]
        return ScriptedReply(reply.text, calls, default_delay)
    if isinstance(reply, str):
        return ScriptedReply(reply, [], default_delay)
    raise TypeError(f"ScriptedModel cannot replay a {type(reply).__name__}")


def _pieces(text: str, size: int | None) -> Iterator[str]:
    if not text:
        return
    if size:
        for start in range(0, len(text), size):
            yield text[start : start + size]
        return
    word = ""
    for char in text:
        word += char
        if char.isspace():
            yield word
            word = ""
    if word:
        yield word
