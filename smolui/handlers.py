"""Turn handlers: what the message box and the buttons do. `smolui.wiring` connects them.

Handlers return plain values (chat message dicts, strings); gradio is imported only where
an update object is needed. Each handler finds its conversation in the registry by the id
the page holds, so two visitors never share an agent.
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from agents.errors import AgentInterruptedError
from agents.memory import TaskStep
from smolui.errors import describe_failure
from smolui.media import MediaSink
from smolui.pump import EventPump
from smolui.render import Message, render_notice
from smolui.sessions import Session, SessionCapacityError, SessionRegistry
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


@dataclass(frozen=True)
class HandlerConfig:
    """What the handlers need to know about the app.

    Args:
        policy: Upload limits.
        max_files: Most files per message.
        max_steps: Steps per turn (None: the agent's own).
        executor_type: "sandbox" or "local", for the side panel.
        model_label: Returns the model's display name.
    """

    policy: UploadPolicy
    max_files: int = 10
    max_steps: int | None = None
    executor_type: str = "sandbox"
    model_label: Callable[[], str] = lambda: "model"


class ChatHandlers:
    """The app's behaviour, bound to a session registry.

    Args:
        registry: The live conversations.
        config: App-level settings the handlers use.
    """

    def __init__(self, registry: SessionRegistry, config: HandlerConfig):
        self.registry = registry
        self.config = config

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
        except SessionCapacityError as error:
            yield history + [render_notice(str(error), "⚠️")], conversation_id
            return
        notes: list[Message] = []
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
        started = time.monotonic()
        view = TurnView(
            secrets.token_hex(4), MediaSink(session.media_dir) if session.media_dir else None
        )
        pump: EventPump | None = None
        try:
            yield history + view.messages, session.id
            agent = session.agent
            request = self._request(session, agent, pending)
            history = history + request["notes"]
            if request["task"] is None:
                view.messages.clear()
                yield history, session.id
                return
            pump = self._start(session, agent, request)
            interval = update_interval(len(history))
            for batch in pump.batches(session.stop_requested, min_interval_s=interval):
                for event in batch:
                    view.apply(event)
                yield history + view.messages, session.id
            state, note = _outcome(pump, session)
            view.finish(state, time.monotonic() - started, note)
            yield history + view.messages, session.id
        except GeneratorExit:  # the page went away: stop the agent, its thread ends the turn
            session.request_stop()
            raise
        except Exception as error:
            view.finish("failed", time.monotonic() - started, describe_failure(error))
            yield history + view.messages, session.id
        finally:
            if pump is None:
                session.end_turn()

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

    def _start(self, session: Session, agent: Any, request: dict[str, Any]) -> EventPump:
        max_steps = self.config.max_steps
        _executor_call(agent, "checkpoint")  # so Retry can take this turn's variables back

        def events() -> Any:
            return agent.run(request["task"], stream=True, reset=False,
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
