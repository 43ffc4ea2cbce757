"""One model call of the loop: whole or streamed, interruptible, provider failures named."""

from __future__ import annotations

import threading
from collections.abc import Generator
from typing import Any

from agents.errors import AgentError, AgentGenerationError, AgentInterruptedError
from agents.models.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    agglomerate_stream_deltas,
)


def call_model(
    model: Any,
    messages: list[ChatMessage],
    stream: bool,
    interrupted: threading.Event,
    **kwargs: Any,
) -> Generator[ChatMessageStreamDelta, None, ChatMessage]:
    """Ask the model for the next message; yield its deltas when streaming, return it whole.

    Args:
        model: The agent's model (`generate`, and `generate_stream` when streaming).
        messages: The conversation to answer.
        stream: Stream the answer as `ChatMessageStreamDelta` events.
        interrupted: Set when the user stops the run; a stream stops at the next delta.
        **kwargs: Passed to the model (stop sequences, tools, response format...).

    Raises:
        AgentGenerationError: The provider failed (the run ends; a model mistake does not).
        AgentInterruptedError: The run was stopped while the model streamed.
    """
    try:
        if not stream:
            return model.generate(messages, **kwargs)
        deltas = []
        for delta in model.generate_stream(messages, **kwargs):
            if interrupted.is_set():
                raise AgentInterruptedError("The run was interrupted.")
            deltas.append(delta)
            yield delta
        return agglomerate_stream_deltas(deltas)
    except (AgentError, GeneratorExit):
        raise  # already named, or the consumer stopped: not a provider failure
    except Exception as error:
        detail = getattr(error, "message", None) or str(error) or type(error).__name__  # client's
        raise AgentGenerationError(
            f"The model call failed: {type(error).__name__}: {detail}"
        ) from error
