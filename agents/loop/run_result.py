"""What a non-streamed run returns: the bare answer, or a `RunResult` with its steps."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from agents.errors import AgentError, AgentInterruptedError, AgentMaxStepsError
from agents.events import AgentEvent
from agents.memory.steps import (
    ActionStep,
    AgentMemory,
    FinalAnswerStep,
    PlanningStep,
    RunResult,
    Timing,
)
from agents.models.messages import TokenUsage


def collect_run(events: Iterator[AgentEvent], memory: AgentMemory, full: bool) -> Any:
    """Consume a run's events; return its answer, or a `RunResult` when `full`.

    Args:
        events: The run's event stream.
        memory: The agent's memory; the run's task is its last step when the run starts.
        full: Return a `RunResult` (answer, state, steps, tokens, timing) instead of the answer;
            an `AgentError` then becomes the result's state instead of being raised.
    """
    start, first = time.time(), len(memory.steps) - 1
    output, state, error = None, "success", None
    try:
        for event in events:
            if isinstance(event, FinalAnswerStep):
                output = event.output
    except AgentError as err:
        if not full:
            raise
        state = "interrupted" if isinstance(err, AgentInterruptedError) else "error"
        error = err
    if not full:
        return output
    new_steps = memory.steps[first:]
    if any(
        isinstance(s, ActionStep) and isinstance(s.error, AgentMaxStepsError) for s in new_steps
    ):
        state = "max_steps_error"
    usage = TokenUsage()
    for step in new_steps:
        if isinstance(step, ActionStep | PlanningStep):  # the steps that call the model
            usage = usage + step.token_usage
    return RunResult(
        output, state, [s.dict() for s in new_steps], usage, Timing(start, time.time()), error
    )
