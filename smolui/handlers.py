"""Turn handlers: what the message box and the buttons do. `smolui.wiring` connects them.

Handlers return plain values (chat message dicts, strings); gradio is imported only where
an update object is needed. Each handler finds its conversation in the registry by the id
the page holds, so two visitors never share an agent.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from agents.errors import AgentInterruptedError
from agents.memory import TaskStep
from agents.tracing import trace_attributes
from smolui.errors import describe_failure
from smolui.live_turn import LiveTurn
from smolui.media import MediaSink
from smolui.observability.observer import NoTurnObserver, TurnObserver
from smolui.pump import EventPump
from smolui.render import Message, render_notice
from smolui.sessions import ConversationUnavailableError, Session, SessionRegistry
from smolui.turn_view import TurnView
from smolui.uploads import UploadPolicy, ingest

logger = logging.getLogger(__name__)

UPDATE_INTERVAL_S = 0.05  # at most 20 page updates a second while tokens stream...
# ...fewer in a long chat: gradio processes the whole chat again for every update (about
# 0.2 ms per message here), so the interval grows with the chat's length, up to a second.
# That holds a streaming conversation to about a tenth of a core however long it gets.
UPDATE_INTERVAL_PER_MESSAGE_S = 0.002
MAX_UPDATE_INTERVAL_S = 1.0
BUSY_WAIT_S = 60.0  # a just-stopped run finishes its step before the next one may start
STOP_NOTE = "Stopped. The agent halts at its next step boundary; send a message to continue."
FILES_ONLY_TASK = "The user sent these files without a message. Say briefly what they are."
RESUMED_NOTICE = (
    "This conversation was reopened from storage: the agent remembers it, but variables "
    "from earlier code are gone."
)
NOT_SAVED_NOTICE = (
    "This conversation could not be saved just now (the database is unreachable); "
    "it will be saved as soon as the database is back."
)


@dataclass(frozen=True)
class HandlerConfig:
    """What the handlers need to know about the app.

    Args:
        policy: Upload limits.
        max_files: Most files per message.
        max_steps: Steps per turn (None: the agent's own).
        executor_type: "sandbox" or "local", for the side panel.
        model_label: Returns the model's display name.
        reset_agent_memory: Start each turn with an empty memory (smolagents' GradioUI flag).
    """

    policy: UploadPolicy
    max_files: int = 10
    max_steps: int | None = None
    executor_type: str = "sandbox"
    model_label: Callable[[], str] = lambda: "model"
    reset_agent_memory: bool = False


class ChatHandlers:
    """The app's behaviour, bound to a session registry.

    Args:
        registry: The live conversations.
        config: App-level settings the handlers use.
        keeper: Saves each conversation when a turn starts and ends (None: nothing is kept).
        observer: Hears each turn's events and outcome (the app's metrics).
    """

    def __init__(
        self,
        registry: SessionRegistry,
        config: HandlerConfig,
        keeper: Any = None,
        observer: TurnObserver | None = None,
    ):
        self.registry = registry
        self.config = config
        self.keeper = keeper
        self.observer: TurnObserver = observer or NoTurnObserver()

    # -- one turn ---------------------------------------------------------------------------

    def echo(
        self, message: dict[str, Any] | None, history: list[Message]
    ) -> tuple[list[Message], Any]:
        """Show the user's message at once and remember it as the pending request.

        Args:
            message: The MultimodalTextbox value (`{"text", "files"}`).
            history: The chat so far.

        Returns:
            The chat with the user's message, and the pending request (None if empty).
        """
        text = str((message or {}).get("text") or "").strip()
        files = [_file_path(f) for f in (message or {}).get("files") or []]
        files = [f for f in files if f]
        if not text and not files:
            return history, None
        shown = list(history or [])
        shown += [{"role": "user", "content": {"path": path}} for path in files]
        if text:
            shown.append({"role": "user", "content": text})
        return shown, {"text": text, "files": files}

    def run_turn(
        self,
        pending: Any,
        history: list[Message],
        conversation_id: str | None,
        page: str | None = None,
    ) -> Iterator[tuple[list[Message], str | None]]:
        """Run the agent on the pending request and stream the rendered events.

        Args:
            pending: What `echo` (or `retry`) left: `{"text", "files"}` or `{"retry": True}`.
            history: The chat including the user's message.
            conversation_id: The page's conversation id.
            page: The page's session hash (to start the grace period when it closes).

        Yields:
            The chat and the conversation id (new if the old one was gone).
        """
        history = list(history or [])
        if not pending:
            yield history, conversation_id
            return
        try:
            session = self.registry.open(conversation_id, page)
        except ConversationUnavailableError as error:
            yield history + [render_notice(str(error), "⚠️")], conversation_id
            return
        notes: list[Message] = []
        if session.resume_note:
            notes.append(render_notice(RESUMED_NOTICE, "ℹ️"))
        if conversation_id and session.id != conversation_id:
            notes.append(render_notice(
                "The agent of this conversation was released (idle too long or the server "
                "restarted), so it does not remember the earlier messages.", "ℹ️"))  # fmt: skip
        if not session.begin_turn(wait=BUSY_WAIT_S):
            busy = render_notice(
                "The agent is still busy with the previous message. Try again shortly.", "⚠️"
            )
            yield history + notes + [busy], session.id
            return
        yield from self._turn(session, pending, history + notes)

    def _turn(
        self, session: Session, pending: dict[str, Any], history: list[Message]
    ) -> Iterator[tuple[list[Message], str]]:
        """Start the turn in a server thread and follow it. A page that goes away (reload,
        closed tab) leaves it running for the next page to follow; only Stop stops it."""
        view = TurnView(
            secrets.token_hex(4), MediaSink(session.media_dir) if session.media_dir else None
        )
        live = session.live_turn = LiveTurn(history + view.messages)
        threading.Thread(target=self._drive, args=(session, pending, view, history),
                         name="smolui-turn-view", daemon=True).start()  # fmt: skip
        for chat in live.follow():
            yield chat, session.id

    def _drive(
        self, session: Session, pending: dict[str, Any], view: TurnView, history: list[Message]
    ) -> None:
        """The whole turn, whoever watches (a thread): prepare the request, run the agent,
        render its events into the live turn, save the conversation, end the turn."""
        live, started, pump = session.live_turn, time.monotonic(), None
        try:
            agent = session.agent
            request = self._request(session, agent, pending)
            history = history + request["notes"]
            if request["task"] is None:
                live.publish(history, done=True)
                return
            self._save(session, history, "running")
            pump = self._start(session, agent, request)
            self.observer.turn_started()
            state, failure = self._render(session, pump, view, history, started)
        except Exception as error:
            state, failure = "failed", error
            view.finish(state, time.monotonic() - started, describe_failure(error))
        finally:
            if pump is None:
                session.end_turn()
        self.observer.turn_finished(state, time.monotonic() - started, failure)
        chat = history + view.messages
        # Saved before the page sees the end: a finished turn is a saved turn.
        if not self._save(session, chat, state):
            chat = chat + [render_notice(NOT_SAVED_NOTICE, "⚠️")]
        live.publish(chat, done=True)

    def _render(
        self,
        session: Session,
        pump: EventPump,
        view: TurnView,
        history: list[Message],
        started: float,
    ) -> tuple[str, BaseException | None]:
        """Apply the agent's events to the view in batches, publishing each; returns the
        turn's state and its error, if any."""
        interval = update_interval(len(history))
        for batch in pump.batches(session.stop_requested, min_interval_s=interval):
            for event in batch:
                view.apply(event)
                self.observer.event(event)
            session.live_turn.publish(history + view.messages)
        state, note = _outcome(pump, session)
        view.finish(state, time.monotonic() - started, note)
        return state, pump.error

    def follow(self, conversation_id: str | None, page: str | None) -> Iterator[list[Message]]:
        """The chat of the turn this page was shown part-way, as it changes, to its end (nothing
        otherwise): how a reloaded page or a second tab reattaches to a running turn.

        Args:
            conversation_id: The page's conversation id.
            page: The page's session hash.
        """
        session = self.registry.get(conversation_id)
        live = session.live_turn if session is not None else None
        if live is None or not live.claim(page):
            return
        yield from live.follow()

    def _request(self, session: Session, agent: Any, pending: dict[str, Any]) -> dict[str, Any]:
        """Turn the pending request into a task (ingesting files), or reuse the last one."""
        if pending.get("retry"):
            if session.last_request is None:
                return {
                    "task": None,
                    "notes": [render_notice("There is no previous message to retry.")],
                }
            _forget_last_turn(agent)
            return {**session.last_request, "notes": []}
        paths = list(pending.get("files") or [])
        notes: list[Message] = []
        if len(paths) > self.config.max_files:
            dropped = [os.path.basename(p) for p in paths[self.config.max_files :]]
            notes.append(render_notice(
                f"Only {self.config.max_files} files can be attached to one message; "
                f"not attached: {', '.join(dropped)}.", "⚠️"))  # fmt: skip
            paths = paths[: self.config.max_files]
        text = pending.get("text") or ""
        if session.resume_note:  # one line for the model: the code's variables are gone
            text, session.resume_note = f"{session.resume_note}\n{text}", None
        images: list[Any] = []
        if paths:
            supports_images = bool(getattr(getattr(agent, "model", None), "supports_images", False))
            result = ingest([(os.path.basename(p), p) for p in paths], session.upload_dir,
                            self.config.policy, images_to_model=supports_images)  # fmt: skip
            session.files.extend(result.accepted)
            notes += [render_notice(line, "📎") for line in result.user_messages()]
            if not result.accepted and not text:
                return {"task": None, "notes": notes}
            text = result.task(text or FILES_ONLY_TASK)
            images = result.images
        request = {"task": text, "images": images}
        session.last_request = request
        return {**request, "notes": notes}

    def _save(self, session: Session, chat: list[Message], state: str) -> bool:
        """Keep the conversation in the store (True when there is no store)."""
        if self.keeper is None or session.owner is None:
            return True
        return self.keeper.save(session, chat, state)

    def _start(self, session: Session, agent: Any, request: dict[str, Any]) -> EventPump:
        max_steps, reset = self.config.max_steps, self.config.reset_agent_memory
        _executor_call(agent, "checkpoint")  # so Retry can take this turn's variables back

        def events() -> Any:
            with trace_attributes(conversation_id=session.id):
                return agent.run(request["task"], stream=True, reset=reset,
                                 images=request["images"] or None, max_steps=max_steps)  # fmt: skip

        return EventPump(events, on_done=session.end_turn).start()

    # -- controls ---------------------------------------------------------------------------

    def stop(self, conversation_id: str | None) -> None:
        """Stop the running turn: the page at once, the agent at its next step.

        Args:
            conversation_id: The page's conversation id.
        """
        session = self.registry.get(conversation_id)
        if session is not None:
            session.request_stop()

    def clear(self, conversation_id: str | None) -> list[Message]:
        """Reset the conversation: agent memory, executor variables and uploaded files.

        Args:
            conversation_id: The page's conversation id.
        """
        session = self.registry.get(conversation_id)
        if session is None:
            return []
        claimed = session.begin_turn(wait=0.0)
        if not claimed:  # let the running turn reach its step boundary, so it records nothing
            session.request_stop()
            claimed = session.begin_turn(wait=BUSY_WAIT_S)
        try:
            session.reset()
            self._save(session, [], "idle")
        finally:
            if claimed:
                session.end_turn()
        return []

    def retry(
        self, history: list[Message], conversation_id: str | None
    ) -> tuple[list[Message], Any]:
        """Drop the last answer from the chat and ask `run_turn` to run the request again.

        Args:
            history: The chat.
            conversation_id: The page's conversation id.
        """
        session = self.registry.get(conversation_id)
        if session is None or session.last_request is None or session.busy:
            return history, None
        return _without_last_answer(history), {"retry": True}

    def side_panel(self, conversation_id: str | None) -> str:
        """The side panel's Markdown for this conversation.

        Args:
            conversation_id: The page's conversation id.
        """
        from smolui.panel import side_panel

        session = self.registry.get(conversation_id)
        agent = session._agent if session is not None else None
        files = session.files if session is not None else []
        return side_panel(self.config.model_label(), agent, self.config.executor_type,
                          self.config.max_steps, files)  # fmt: skip


def update_interval(messages: int) -> float:
    """Least seconds between two page updates of a turn, for a chat of `messages` messages.

    Args:
        messages: Messages in the chat before the turn.
    """
    return min(
        MAX_UPDATE_INTERVAL_S, max(UPDATE_INTERVAL_S, messages * UPDATE_INTERVAL_PER_MESSAGE_S)
    )


def _outcome(pump: EventPump, session: Session) -> tuple[str, str | None]:
    if session.stop_requested.is_set() or isinstance(pump.error, AgentInterruptedError):
        return "stopped", STOP_NOTE
    if pump.error is not None:
        return "failed", describe_failure(pump.error)
    return "done", None


def _forget_last_turn(agent: Any) -> None:
    """Remove the last task and everything after it from the agent's memory, and give the
    code's variables back the values they had before it (where the executor can)."""
    steps = agent.memory.steps
    last = max((i for i, step in enumerate(steps) if isinstance(step, TaskStep)), default=None)
    if last is not None:
        del steps[last:]
    _executor_call(agent, "rollback")


def _executor_call(agent: Any, method: str) -> None:
    """Call an optional executor method (`checkpoint`, `rollback`) if the agent has one."""
    call = getattr(getattr(agent, "executor", None), method, None)
    if callable(call):
        try:
            call()
        except Exception:  # the next execution reports a broken executor to the model
            logger.warning("executor %s failed", method, exc_info=True)


def _without_last_answer(history: list[Message]) -> list[Message]:
    """The chat up to and including the last user message."""
    for index in range(len(history) - 1, -1, -1):
        if history[index].get("role") == "user":
            return list(history[: index + 1])
    return list(history)


def _file_path(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        return item.get("path")
    return getattr(item, "path", None)
