"""Step callbacks: accepted as a list or as a dict from step class to callbacks."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from agents.memory.steps import FinalAnswerStep

Callback = tuple[type | None, Callable[..., Any], bool]


def normalize_callbacks(callbacks: Any) -> list[Callback]:
    """`[(step class or None for all, callback, takes the agent)]` from a list or a dict.

    Args:
        callbacks: A list of callbacks, or a dict from step class to a callback or a list.
    """
    if not callbacks:
        return []
    if isinstance(callbacks, dict):
        pairs = []
        for kind, funcs in callbacks.items():
            funcs = funcs if isinstance(funcs, (list, tuple)) else [funcs]
            pairs += [(kind, f) for f in funcs]
    else:
        pairs = [(None, f) for f in callbacks]
    return [(kind, f, takes_agent(f)) for kind, f in pairs]


def run_callbacks(callbacks: list[Callback], step: Any, agent: Any) -> None:
    """Call the callbacks registered for the step's class (or for all steps).

    Args:
        callbacks: As returned by `normalize_callbacks`.
        step: The step that just ended, or the run's `FinalAnswerStep`.
        agent: The agent, for callbacks that take it.
    """
    for kind, callback, wants_agent in callbacks:
        # A callback for every step (the list form) sees the memory steps, not the answer:
        # smolagents runs the list form for its steps only, the dict form by class.
        if kind is None and isinstance(step, FinalAnswerStep):
            continue
        if kind is None or isinstance(step, kind):
            if wants_agent:
                callback(step, agent=agent)
            else:
                callback(step)


def takes_agent(callback: Callable) -> bool:
    """Whether a callback accepts the agent (an `agent` parameter or **kwargs)."""
    try:
        params = inspect.signature(callback).parameters
    except (TypeError, ValueError):
        return False
    return "agent" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
