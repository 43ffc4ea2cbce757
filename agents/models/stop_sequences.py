"""Stop sequences: cut answers and streams where a stop sequence begins.

Backends that cannot stop by themselves return the stop text; `Model` cuts it here, and
holds back streamed text that may be the start of one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agents.models.messages import ChatMessageStreamDelta


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


def started(stream: Iterator[ChatMessageStreamDelta]) -> Iterator[ChatMessageStreamDelta]:
    """Pull the first delta now, so connection errors happen inside the retry loop."""
    first = next(stream, None)

    def chained() -> Iterator[ChatMessageStreamDelta]:
        if first is not None:
            yield first
        yield from stream

    return chained()


def cut_stream_at_stops(
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
