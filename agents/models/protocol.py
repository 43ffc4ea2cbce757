"""`AgentModel`: what an agent calls on its model, and nothing more.

`Model` provides all of it (a backend only implements `_generate`); the agent checks it once,
at construction, so the loop calls these members without probing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

from agents.models.messages import ChatMessage, ChatMessageStreamDelta


@runtime_checkable
class AgentModel(Protocol):
    """The model seam of the agent loop.

    Attributes:
        model_id: The backend's model identifier (None when it has none); names spans and
            the agent tree, and chooses the small-model profile.
        context_size: The context window in tokens, when known; the prompt budget derives
            from it.
        supports_grammar: Whether `generate(..., grammar=...)` constrains decoding.
    """

    model_id: str | None
    context_size: int | None
    supports_grammar: bool

    def generate(
        self,
        messages: list[ChatMessage | dict[str, Any]],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> ChatMessage:
        """Answer a conversation with one message."""
        ...

    def generate_stream(
        self,
        messages: list[ChatMessage | dict[str, Any]],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, Any] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatMessageStreamDelta]:
        """Stream the answer as deltas (when the agent streams outputs)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens in `text`, for the prompt budget."""
        ...

    def parse_tool_calls(self, message: ChatMessage) -> ChatMessage:
        """Make sure `message.tool_calls` is set (a ToolCallingAgent step)."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """The model's settings as JSON-ready data (saving an agent)."""
        ...
