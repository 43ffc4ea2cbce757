"""What the turn handlers tell an observer (the app's metrics) about each turn."""

from __future__ import annotations

from typing import Any, Protocol


class TurnObserver(Protocol):
    """Hears about every turn the chat handlers run, from the events they already render."""

    def turn_started(self) -> None:
        """A turn's agent run began."""

    def event(self, event: Any) -> None:
        """The agent emitted `event` (a step, a delta, a final answer...)."""

    def turn_finished(self, state: str, seconds: float, error: BaseException | None) -> None:
        """A turn ended as "done", "stopped" or "failed", after `seconds`, with `error`."""


class NoTurnObserver:
    """The default observer: ignores everything."""

    def turn_started(self) -> None:
        """Ignore the start."""

    def event(self, event: Any) -> None:
        """Ignore the event."""

    def turn_finished(self, state: str, seconds: float, error: BaseException | None) -> None:
        """Ignore the end."""


class TurnObservers:
    """Several observers heard as one (the app's metrics and the turn's usage count).

    Args:
        *observers: The observers, told in this order.
    """

    def __init__(self, *observers: TurnObserver):
        self.observers = observers

    def turn_started(self) -> None:
        """Tell each observer the run began."""
        for observer in self.observers:
            observer.turn_started()

    def event(self, event: Any) -> None:
        """Give each observer the event.

        Args:
            event: One agent event.
        """
        for observer in self.observers:
            observer.event(event)

    def turn_finished(self, state: str, seconds: float, error: BaseException | None) -> None:
        """Tell each observer how the turn ended.

        Args:
            state: "done", "stopped" or "failed".
            seconds: How long it ran.
            error: What ended a failed turn, if known.
        """
        for observer in self.observers:
            observer.turn_finished(state, seconds, error)
