"""Change tracking for memory steps, so prompts are built incrementally (`agents.memory.context`).

Each step carries a `stamp` that changes whenever one of its fields is assigned. A step that
is already part of a prompt also counts its changes in one counter shared by all agents, and
the memory's list counts every change other than appending. Together they let the context
window tell in constant time whether anything but new steps arrived since the last prompt.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, SupportsIndex

_stamps = itertools.count()
_prompt_changes = [0]  # assignments to steps already in a prompt, any agent's

IN_PROMPT = "_in_prompt"


def stamp_change(state: dict[str, Any]) -> None:
    """Record that a step changed; `state` is the step's `__dict__`."""
    state["stamp"] = next(_stamps)
    if IN_PROMPT in state:
        _prompt_changes[0] += 1


def mark_in_prompt(step: Any) -> None:
    """From now on, count the step's changes in `prompt_changes()`."""
    step.__dict__[IN_PROMPT] = True


def prompt_changes() -> int:
    """How many times a step already in a prompt was changed (by any agent)."""
    return _prompt_changes[0]


class StepList(list):
    """A list of steps that counts its changes other than appending (`version`)."""

    def __init__(self, steps: Iterable[Any] = ()):
        super().__init__(steps)
        self.version = 0

    def __setitem__(self, index: Any, value: Any) -> None:
        self.version += 1
        super().__setitem__(index, value)

    def __delitem__(self, index: Any) -> None:
        self.version += 1
        super().__delitem__(index)

    def __imul__(self, count: SupportsIndex) -> StepList:
        self.version += 1
        return super().__imul__(count)

    def insert(self, index: SupportsIndex, value: Any) -> None:
        self.version += 1
        super().insert(index, value)

    def pop(self, index: SupportsIndex = -1) -> Any:
        self.version += 1
        return super().pop(index)

    def remove(self, value: Any) -> None:
        self.version += 1
        super().remove(value)

    def clear(self) -> None:
        self.version += 1
        super().clear()

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self.version += 1
        super().sort(*args, **kwargs)

    def reverse(self) -> None:
        self.version += 1
        super().reverse()
