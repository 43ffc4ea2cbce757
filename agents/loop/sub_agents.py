"""Relay the events of managed agents while a step runs, so a UI can nest them live."""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable, Generator
from typing import Any

from agents.events import SubAgentEvent

_DONE = object()


def drain_while(
    work: Callable[[], Any], managed_tools: dict[str, Any]
) -> Generator[SubAgentEvent, None, Any]:
    """Run `work` in a thread, yield the managed agents' events as they come, return its result.

    Args:
        work: The step's action (code execution or tool calls) that may call managed agents.
        managed_tools: The managed agents as tools; each gets an `event_sink` while `work` runs.
    """
    events: queue.Queue[Any] = queue.Queue()
    outcome: dict[str, Any] = {}

    def sink(name: str, event: Any) -> None:
        events.put(SubAgentEvent(name, event))

    def target() -> None:
        try:
            outcome["value"] = work()
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
