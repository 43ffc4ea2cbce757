"""The agent's lifecycle between runs, as a UI or a library user drives it: its executor,
warming up, read grants, forgetting (`reset`), restoring a stored memory, undoing the last
turn, stopping a run (`interrupt`) and releasing what it holds (`close`).

`MultiStepAgent` mixes this in; the loop itself stays in `agents.loop.agent`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from agents.memory import image_budget
from agents.memory.steps import MemoryStep, TaskStep

if TYPE_CHECKING:
    from agents.executors.base import CodeExecutor

logger = logging.getLogger(__name__)


class LifecycleMixin:
    """What a UI or a library user calls on an agent around its runs.

    Built on what `MultiStepAgent` defines: `memory`, `state`, `tools`, `approval`,
    `max_kept_image_pixels`, `_interrupt` and `_state_checkpoint`. Subclasses with an
    executor (`CodeAgent`) override `executor`, `warm_up`, `grant_read_paths`, `interrupt` and
    `close`.
    """

    @property
    def executor(self) -> CodeExecutor | None:
        """What runs the agent's code; None for an agent that only calls tools."""
        return None

    def warm_up(self) -> None:
        """Start what the first step would otherwise wait for (e.g. the code worker)."""

    def grant_read_paths(self, paths: Sequence[str | Path]) -> None:
        """Let the agent's code read these folders (replacing those granted before).

        Args:
            paths: Folders the code may read; an empty list takes every grant back.
        """

    def reset(self) -> None:
        """Forget the conversation: memory, state and the executor's variables."""
        self.memory.reset()
        self.state = {}
        self._state_checkpoint = None
        if self.executor is not None:
            self.executor.reset()

    def restore_memory(self, steps: Sequence[MemoryStep]) -> None:
        """Replace the memory's steps (e.g. with a stored conversation's), keeping the images
        within this agent's budget at once rather than after the next step.

        Args:
            steps: The steps, oldest first; the system prompt is the agent's own.
        """
        self.memory.steps = list(steps)
        image_budget.keep_images_within(self.memory.steps, self.max_kept_image_pixels)

    def undo_last_turn(self) -> bool:
        """Forget the last task: its steps leave memory, and the state and the code's
        variables go back to what they were when its run started.

        Variables go back one run only: undoing again (or undoing a conversation restored
        into memory) drops steps from memory and leaves the variables as they are.
        Returns False, changing nothing, when memory holds no task.
        """
        steps = self.memory.steps
        last = next(
            (i for i in range(len(steps) - 1, -1, -1) if isinstance(steps[i], TaskStep)), None
        )
        if last is None:
            return False
        del steps[last:]
        if self._state_checkpoint is not None:
            self.state = self._state_checkpoint
            self._state_checkpoint = None
        if self.executor is not None:
            try:
                self.executor.rollback()
            except Exception:  # the next execution reports a broken executor to the model
                logger.warning("rolling the executor's variables back failed", exc_info=True)
        return True

    def interrupt(self) -> None:
        """Stop the current run at the next step boundary (or during model streaming)."""
        self._interrupt.set()
        self.approval.interrupted_now()  # an approver waiting on a person stops waiting

    def _take_checkpoint(self) -> None:
        """Remember state and the code's variables as they are before a run, for undo."""
        self._state_checkpoint = dict(self.state)
        if self.executor is not None:
            self.executor.checkpoint()

    def close(self) -> None:
        """Release resources (executors, tools' workers); do not use the agent afterwards."""
        for tool in self.tools.values():
            tool.close()
