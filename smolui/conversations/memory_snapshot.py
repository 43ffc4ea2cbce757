"""An agent's memory as data for the store, turning only the steps that changed into data.

Saving a turn of a long conversation should cost what the turn added, not the whole memory:
each memory step carries a `stamp` that changes whenever one of its fields is assigned
(`agents.memory.step_tracking`), so a step still at its place with the same stamp reuses the data
made for it last time (its images are not encoded again either).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from agents.memory.io import FORMAT_VERSION, ImageStore, steps_to_data
from agents.memory.steps import MemoryStep


class MemorySnapshot:
    """Turns one conversation's memory into `agents.memory.io` data, reusing unchanged steps.

    Thread-safe: a turn's save and a retried save may overlap.
    """

    def __init__(self) -> None:
        self._made: list[tuple[Any, int, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def data(self, steps: Sequence[Any], images: ImageStore | None = None) -> dict[str, Any]:
        """The memory as data (`{"version", "steps"}`), as `steps_to_data` makes it.

        Args:
            steps: `agent.memory.steps`.
            images: Where images go.
        """
        with self._lock:
            made = self._made
            out = []
            for index, step in enumerate(steps):
                known = made[index] if index < len(made) else None
                if known is not None and known[0] is step and _stamp(step) == known[1] >= 0:
                    out.append(known[2])
                else:
                    out.append(steps_to_data([step], images)["steps"][0])
            self._made = [(s, _stamp(s), d) for s, d in zip(steps, out, strict=True)]
        return {"version": FORMAT_VERSION, "steps": out}


def _stamp(step: Any) -> int:
    """The step's change stamp; -1 (never reused) for a step that has none."""
    return step.stamp if isinstance(step, MemoryStep) else -1
