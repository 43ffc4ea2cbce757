"""Prometheus metrics of one app: turns, steps, errors, tokens, durations, live state.

Each `AppMetrics` owns its own `CollectorRegistry`, so two apps in one process (tests, a
benchmark) never add to each other's counts. Counts come from the agent events the turn
handlers already render (`TurnObserver`); the gauges read the live conversations when
Prometheus scrapes.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from agents.memory.steps import ActionStep, PlanningStep

if TYPE_CHECKING:
    from smolui.sessions import Session

logger = logging.getLogger(__name__)

PREFIX = "smolui"
# Turns take from under a second (a scripted model) to many minutes (a slow local model).
TURN_SECONDS_BUCKETS = (0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800)


class AppMetrics:
    """The metrics of one app, fed by the turn handlers (a `TurnObserver`).

    Args:
        sessions: The app's `SessionRegistry` (for the live-conversation gauges); None
            leaves those gauges at zero.
        queue: The app's `TurnQueue` (for the queue-length gauge); None leaves it at zero.
    """

    def __init__(self, sessions: Any = None, queue: Any = None):
        self.registry = CollectorRegistry(auto_describe=True)
        self._sessions = sessions
        self._queue = queue
        reg = self.registry
        self.turns = Counter(
            f"{PREFIX}_turns", "Chat turns, by outcome.", ["outcome"], registry=reg
        )
        self.steps = Counter(f"{PREFIX}_steps", "Agent steps, by kind.", ["kind"], registry=reg)
        self.errors = Counter(
            f"{PREFIX}_errors",
            "Errors by kind: a step's error (the model goes on) or a failed turn's.",
            ["kind"],
            registry=reg,
        )
        self.tokens = Counter(
            f"{PREFIX}_model_tokens", "Model tokens, input or output.", ["direction"], registry=reg
        )
        self.turn_seconds = Histogram(
            f"{PREFIX}_turn_duration_seconds",
            "Duration of a chat turn.",
            buckets=TURN_SECONDS_BUCKETS,
            registry=reg,
        )
        gauges = {
            "live_conversations": ("Conversations held in memory.", self._live_conversations),
            "running_turns": ("Turns running now.", self._running_turns),
            "sandbox_workers": ("Code-execution worker processes alive.", self._sandbox_workers),
            "queue_length": ("Turns waiting for a free slot.", self._queue_length),
        }
        for name, (text, read) in gauges.items():
            Gauge(f"{PREFIX}_{name}", text, registry=reg).set_function(read)

    # -- TurnObserver -----------------------------------------------------------------------

    def turn_started(self) -> None:
        """Nothing to count: running turns are read from the sessions."""

    def event(self, event: Any) -> None:
        """Count a finished step: its kind, tokens and error.

        Args:
            event: One agent event; only `ActionStep` and `PlanningStep` count.
        """
        if isinstance(event, ActionStep):
            kind = "action"
        elif isinstance(event, PlanningStep):
            kind = "planning"
        else:
            return
        self.steps.labels(kind).inc()
        usage = event.token_usage
        if usage is not None:
            self.tokens.labels("input").inc(usage.input_tokens)
            self.tokens.labels("output").inc(usage.output_tokens)
        error = event.error if isinstance(event, ActionStep) else None
        if error is not None:
            self.errors.labels(type(error).__name__).inc()

    def turn_finished(self, state: str, seconds: float, error: BaseException | None) -> None:
        """Count a finished turn and its duration.

        Args:
            state: "done", "stopped" or "failed".
            seconds: How long it ran.
            error: What ended a failed turn, if known.
        """
        self.turns.labels(state).inc()
        self.turn_seconds.observe(max(0.0, seconds))
        if state == "failed":
            self.errors.labels(type(error).__name__ if error is not None else "TurnFailed").inc()

    # -- exposition -------------------------------------------------------------------------

    def render(self) -> tuple[bytes, str]:
        """The metrics in the Prometheus text format, and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST

    # -- gauges -----------------------------------------------------------------------------

    def _live(self) -> list[Any]:
        return self._sessions.sessions() if self._sessions is not None else []

    def _live_conversations(self) -> float:
        return float(len(self._live()))

    def _running_turns(self) -> float:
        # A busy conversation may still be waiting in the queue: the queue's running slots
        # are the turns that run. Without a queue every busy conversation runs.
        if self._queue is not None:
            return float(self._queue.running)
        return float(sum(1 for session in self._live() if session.busy))

    def _queue_length(self) -> float:
        return float(self._queue.waiting) if self._queue is not None else 0.0

    def _sandbox_workers(self) -> float:
        return float(sum(1 for session in self._live() if _has_worker(session)))


def _has_worker(session: Session) -> bool:
    """True when the conversation's executor has a live worker process or kernel.

    Args:
        session: A live conversation; one whose agent is not built yet has no worker.
    """
    agent = session.built_agent
    executor = agent.executor if agent is not None else None
    return executor is not None and executor.running
