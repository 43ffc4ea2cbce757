"""Relay the events of managed agents (and a step's own, like its code's output so far)
while a step runs, so a UI can show them live."""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable, Generator
from typing import Any

from agents.events import AgentEvent, SubAgentEvent

_DONE = object()


def drain_while(
    work: Callable[[], Any], managed_tools: dict[str, Any]
) -> Generator[AgentEvent, None, Any]:
    """Run `work` in a thread, yield the managed agents' events as they come, return its result.

    Args:
        work: The step's action (code execution or tool calls) that may call managed agents.
        managed_tools: The managed agents as tools; each gets an `event_sink` while `work` runs.
    """
    return (yield from relay_while(lambda _emit: work(), managed_tools))


def relay_while(
    work: Callable[[Callable[[AgentEvent], None]], Any], managed_tools: dict[str, Any]
) -> Generator[AgentEvent, None, Any]:
    """Like `drain_while`, and `work` gets an `emit` to stream events of its own (the code's
    output so far, say) from its thread.

    Args:
        work: The step's action; called with `emit`, which queues one event to yield.
        managed_tools: The managed agents as tools; each gets an `event_sink` while `work` runs.
    """
    events: queue.Queue[Any] = queue.Queue()
    outcome: dict[str, Any] = {}

    def sink(name: str, event: Any) -> None:
        events.put(SubAgentEvent(name, event))

    def target() -> None:
        try:
            outcome["value"] = work(events.put)
        except BaseException as error:  # handed to the caller's thread below
            outcome["error"] = error
        finally:
            events.put(_DONE)

    for tool in managed_tools.values():
        tool.event_sink = sink
    # The caller's context (trace attributes, the active span) goes with the work.
    context = contextvars.copy_context()
    thread = threading.Thread(target=context.run, args=(target,), name="agent-step", daemon=True)
    thread.start()
    try:
        while True:
            item = events.get()
            if item is _DONE:
                break
            yield item
    finally:
        for tool in managed_tools.values():
            tool.event_sink = None
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
