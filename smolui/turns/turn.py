"""One chat turn: the agent runs on a request and its events become chat messages.

`AgentTurn` is the one implementation of a turn. The app's handlers follow it from a server
thread and publish each version of the chat (`smolui.handlers.chat`); `stream_to_gradio` yields
its messages to a script's own Blocks. Either way the agent runs in an `EventPump` thread,
so the follower gets token deltas in batches and notices a Stop at once, while the agent
stops at its next step boundary.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from agents.errors import AgentInterruptedError, AgentStoppedError
from agents.events import AgentEvent
from agents.loop.agent import MultiStepAgent
from agents.observability.tracing import trace_attributes
from smolui.observability.observer import NoTurnObserver, TurnObserver
from smolui.render.errors import describe_failure
from smolui.render.messages import FileSink, Message
from smolui.turns.pump import EventPump
from smolui.turns.view import TurnView

STOPPED_NOTE = "Stopped."


@dataclass(frozen=True)
class TurnRequest:
    """What one turn asks of the agent.

    Args:
        task: The request, with notes about attached files.
        images: Images for the model (PIL), if any.
        additional_args: Values given to the agent (variables for its code).
        resume_from: A resumed turn's: the model's output for the next step of the task
            in memory (`agent.resume`); `task` and the rest are then unused.
        resume_step: The number of that step (memory must be at it).
    """

    task: str
    images: list[Any] = field(default_factory=list)
    additional_args: dict[str, Any] | None = None
    resume_from: Any = None
    resume_step: int | None = None


class AgentTurn:
    """One turn's chat messages, from the pending first step to the footer.

    The turn exists (its pending step shows) before the agent runs: `start` runs the agent,
    `follow` renders its events as they come, and once `follow` returns the turn is finished
    (`state`, `error`, and `messages` ending with the footer).

    Args:
        files: Saves produced images and audio for display (None: they are not shown).
        observer: Hears the turn's start, events and end (the app's metrics).
        stop_note: Shown when the turn was stopped.
    """

    def __init__(
        self,
        files: FileSink | None = None,
        observer: TurnObserver | None = None,
        stop_note: str = STOPPED_NOTE,
    ):
        self.view = TurnView(secrets.token_hex(4), files)
        self.observer: TurnObserver = observer or NoTurnObserver()
        self.stop_note = stop_note
        self.started = time.monotonic()
        self.state = "running"
        self.error: BaseException | None = None
        self._agent: MultiStepAgent | None = None
        self._pump: EventPump | None = None

    @property
    def messages(self) -> list[Message]:
        """This turn's chat messages now (the view's own list: copy it to keep it)."""
        return self.view.messages

    @property
    def seconds(self) -> float:
        """Seconds since the turn began."""
        return time.monotonic() - self.started

    def start(
        self,
        agent: MultiStepAgent,
        request: TurnRequest,
        reset: bool = False,
        max_steps: int | None = None,
        on_done: Callable[[], None] | None = None,
        conversation_id: str | None = None,
        user: str | None = None,
    ) -> AgentTurn:
        """Run the agent on the request in a pump thread.

        Args:
            agent: The conversation's agent.
            request: The task and its images.
            reset: Start from an empty memory instead of continuing the conversation.
            max_steps: Steps for this turn (None: the agent's own).
            on_done: Called in the pump thread once the agent's run has ended, however.
            conversation_id: Attached to the run's traces.
            user: The signed-in user, attached to the run's traces (None: anonymous).
        """

        def events() -> Iterator[AgentEvent]:
            with trace_attributes(conversation_id=conversation_id, user=user):
                if request.resume_from is not None:
                    return agent.resume(request.resume_from, stream=True, max_steps=max_steps,
                                        step_number=request.resume_step)  # fmt: skip
                return agent.run(
                    request.task,
                    stream=True,
                    reset=reset,
                    images=request.images or None,
                    additional_args=request.additional_args,
                    max_steps=max_steps,
                )

        self._agent = agent
        self._pump = EventPump(events, on_done=on_done).start()
        self.observer.turn_started()
        return self

    def follow(
        self, stop: threading.Event | None = None, min_interval_s: float = 0.0
    ) -> Iterator[list[Message]]:
        """Apply the agent's events to the messages batch by batch, yielding them after each.

        Ends when the run ends or `stop` is set; the turn is then finished. A follower that
        goes away early (the generator closed) interrupts the agent.

        Args:
            stop: Ends the following at once (the Stop button).
            min_interval_s: Least seconds between two yields; faster events are batched.
        """
        if self._pump is None or self._agent is None:
            raise RuntimeError("start the turn before following it")
        stop = stop or threading.Event()
        failure: Exception | None = None
        try:
            for batch in self._pump.batches(stop, min_interval_s=min_interval_s):
                for event in batch:
                    self.view.apply(event)
                    self.observer.event(event)
                yield self.view.messages
        except GeneratorExit:
            self._agent.interrupt()  # nobody is watching: stop at the next step
            raise
        except Exception as error:  # a rendering failure ends the turn, not the server
            failure = error
            self._agent.interrupt()
        self._finish(failure, stop.is_set())

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the agent's run has ended (it may outlive `follow` after a Stop).

        Returns whether it ended (False: not started, or still running after `timeout`).

        Args:
            timeout: Seconds to wait (None: as long as it takes).
        """
        return self._pump is not None and self._pump.wait(timeout)

    def fail(self, error: BaseException) -> None:
        """Finish the turn as failed (its request could not be prepared, or it crashed).

        Args:
            error: What went wrong; the page gets a readable description.
        """
        self._end("failed", error, describe_failure(error))

    def _finish(self, failure: Exception | None, stopped: bool) -> None:
        error = failure or (self._pump.error if self._pump is not None else None)
        if failure is None and (stopped or isinstance(error, AgentInterruptedError)):
            # Stopped by an approval's answer (or its timeout), not the page: say why.
            said = isinstance(error, AgentStoppedError) and not stopped
            self._end("stopped", error, error.message if said else self.stop_note)
        elif error is not None:
            self._end("failed", error, describe_failure(error))
        else:
            self._end("done", None, None)

    def _end(self, state: str, error: BaseException | None, note: str | None) -> None:
        self.state, self.error = state, error
        self.view.finish(state, self.seconds, note)
        self.observer.turn_finished(state, self.seconds, error)
