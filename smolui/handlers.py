"""Turn handlers: what the message box and the buttons do. `smolui.wiring` connects them.

Handlers return plain values (chat message dicts, strings); gradio is imported only where
an update object is needed. Each handler finds its conversation in the registry by the id
the page holds, so two visitors never share an agent.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any

from smolui.admission import LEFT_QUEUE, Admission, TurnAdmission
from smolui.attachments import mark_refused
from smolui.auth import Identity
from smolui.live_turn import LiveTurn
from smolui.media import MediaSink
from smolui.observability.observer import NoTurnObserver, TurnObserver, TurnObservers
from smolui.render import Message, render_notice
from smolui.sessions import ConversationUnavailableError, Session, SessionRegistry
from smolui.turn import AgentTurn
from smolui.turn_request import prepare_request
from smolui.uploads import UploadPolicy

logger = logging.getLogger(__name__)

UPDATE_INTERVAL_S = 0.05  # at most 20 page updates a second while tokens stream...
# ...fewer in a long chat: gradio processes the whole chat again for every update (about
# 0.2 ms per message here), so the interval grows with the chat's length, up to a second.
# That holds a streaming conversation to about a tenth of a core however long it gets.
UPDATE_INTERVAL_PER_MESSAGE_S = 0.002
MAX_UPDATE_INTERVAL_S = 1.0
BUSY_WAIT_S = 60.0  # a just-stopped run finishes its step before the next one may start
STOP_NOTE = "Stopped. The agent halts at its next step boundary; send a message to continue."
RESUMED_NOTICE = (
    "This conversation was reopened from storage: the agent remembers it, but variables "
    "from earlier code are gone."
)
RELEASED_NOTICE = (
    "The agent of this conversation was released (idle too long or the server restarted), "
    "so it does not remember the earlier messages."
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
        admission: The gate before each turn: sign-in, per-user limits, the turn queue
            (None: every turn starts at once).
    """

    def __init__(
        self,
        registry: SessionRegistry,
        config: HandlerConfig,
        keeper: Any = None,
        observer: TurnObserver | None = None,
        admission: TurnAdmission | None = None,
    ):
        self.registry = registry
        self.config = config
        self.keeper = keeper
        self.observer: TurnObserver = observer or NoTurnObserver()
        self.admission = admission

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
        identity: Identity | None = None,
    ) -> Iterator[tuple[list[Message], str | None]]:
        """Run the agent on the pending request and stream the rendered events.

        Args:
            pending: What `echo` (or `retry`) left: `{"text", "files"}` or `{"retry": True}`.
            history: The chat including the user's message.
            conversation_id: The page's conversation id.
            page: The page's session hash (to start the grace period when it closes).
            identity: Who sends it (sign-in and per-user limits); None: an anonymous visitor.

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
            notes.append(render_notice(RELEASED_NOTICE, "ℹ️"))
        claimed = session.begin_turn(wait=BUSY_WAIT_S)
        if pending.get("after_stop"):  # a Retry pressed while a stopped turn ended its step
            history, cancelled = _queued_retry(session, claimed, history)
            if cancelled:
                session.end_turn()
                yield history, session.id
                return
        if not claimed:
            busy = render_notice(
                "The agent is still busy with the previous message. Try again shortly.", "⚠️"
            )
            yield history + notes + [busy], session.id
            return
        self._begin(session, history + notes)
        admission = yield from self._admit(session, pending, identity, history + notes)
        if admission is not None:
            yield from self._turn(session, pending, history + notes, admission, identity)

    def _begin(self, session: Session, chat: list[Message]) -> None:
        """The turn is claimed: from now on a reloaded page, a second tab, a restarted server
        or another replica shows the user's message. Kept before the queue, the uploads and
        the first model call, each of which may take a while."""
        session.live_turn = LiveTurn(chat)
        self._save(session, chat, "running")

    def _end_unstarted(self, session: Session, chat: list[Message]) -> None:
        """The claimed turn will not run (refused, left the queue): pages following it stop
        at `chat`, which is kept as the conversation's chat."""
        self._save(session, chat, "idle")
        if session.live_turn is not None:
            session.live_turn.publish(chat, done=True)

    def _admit(
        self, session: Session, pending: Any, identity: Identity | None, chat: list[Message]
    ) -> Generator[tuple[list[Message], str], None, Admission | None]:
        """Pass the claimed conversation's turn through the gate: signed in, under the limits,
        a free slot (its place in the queue shown meanwhile). None: it may not run (the chat
        says why, Stop left the queue, or the page went away) and the claim is released."""
        if self.admission is None:
            return Admission(None, [], None)
        try:
            who = identity or Identity()
            entered = self.admission.enter(who, session.owner, pending, session.id)
        except Exception:
            session.end_turn()
            raise
        if isinstance(entered, str):
            refused = chat + [render_notice(entered, "⚠️")]
            self._end_unstarted(session, refused)
            session.end_turn()
            yield refused, session.id
            return None
        admitted = False
        try:
            for text in entered.wait(session.stop_requested):
                yield chat + [render_notice(text, "ℹ️")], session.id
            admitted = entered.admitted
        finally:
            if not admitted:  # refused, stopped, or the page went away while waiting
                self._end_unstarted(session, chat + [render_notice(LEFT_QUEUE, "ℹ️")])
                entered.release()
                session.end_turn()
        if not admitted:
            yield chat + [render_notice(LEFT_QUEUE, "ℹ️")], session.id
            return None
        return entered

    def _turn(
        self,
        session: Session,
        pending: dict[str, Any],
        history: list[Message],
        admission: Admission,
        identity: Identity | None = None,
    ) -> Iterator[tuple[list[Message], str]]:
        """Start the turn in a server thread and follow it. A page that goes away (reload,
        closed tab) leaves it running for the next page to follow; only Stop stops it."""
        files = MediaSink(session.media_dir) if session.media_dir is not None else None
        turn = AgentTurn(files, TurnObservers(self.observer, admission), STOP_NOTE)
        live = session.live_turn  # made by `_begin`, when the turn was claimed
        live.publish(history + turn.messages)
        thread = threading.Thread(
            target=self._drive,
            args=(session, pending, turn, history, admission, identity),
            name="smolui-turn-view",
            daemon=True,
        )
        thread.start()
        for chat in live.follow():
            yield chat, session.id

    def _drive(
        self,
        session: Session,
        pending: dict[str, Any],
        turn: AgentTurn,
        history: list[Message],
        admission: Admission,
        identity: Identity | None = None,
    ) -> None:
        """The whole turn, whoever watches (a thread): prepare the request, run the agent,
        publish its messages to the live turn, save the conversation, end the turn (traced
        with the conversation id and the signed-in user, never a browser key)."""
        live, started = session.live_turn, False
        try:
            agent = session.agent
            config = self.config
            prepared = prepare_request(session, agent, pending, config.policy, config.max_files)
            history = mark_refused(history, prepared.refused) + prepared.notes
            if prepared.request is None:
                live.publish(history, done=True)
                return
            self._save(session, history, "running")
            turn.start(
                agent,
                prepared.request,
                reset=config.reset_agent_memory,
                max_steps=config.max_steps,
                on_done=session.end_turn,
                conversation_id=session.id,
                user=identity.owner if identity is not None else None,
            )
            started = True
            interval = update_interval(len(history))
            for messages in turn.follow(session.stop_requested, interval):
                live.publish(history + messages)
        except Exception as error:
            turn.fail(error)
        finally:
            if not started:
                session.end_turn()
            admission.release()  # the next turn in the queue may start
        chat = history + turn.messages
        # Saved before the page sees the end: a finished turn is a saved turn.
        if not self._save(session, chat, turn.state):
            chat = chat + [render_notice(NOT_SAVED_NOTICE, "⚠️")]
        live.publish(chat, done=True)

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

    def _save(self, session: Session, chat: list[Message], state: str) -> bool:
        """Keep the conversation in the store (True when there is no store)."""
        if self.keeper is None or session.owner is None:
            return True
        return self.keeper.save(session, chat, state)

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

    def side_panel(self, conversation_id: str | None, pending: dict[str, Any] | None = None) -> str:
        """The side panel's Markdown for this conversation.

        Args:
            conversation_id: The page's conversation id.
            pending: The message a turn is starting with (from `echo`): the panel then says
                a turn runs and lists its files as being read. None: no turn starts.
        """
        from smolui.panel import side_panel

        session = self.registry.get(conversation_id)
        agent = session.built_agent if session is not None else None
        files = session.files if session is not None else []
        reading = [os.path.basename(path) for path in (pending or {}).get("files") or []]
        config = self.config
        picked = session.model if session is not None else None
        return side_panel(
            picked or config.model_label(),
            agent,
            config.executor_type,
            config.max_steps,
            files,
            running=pending is not None,
            reading=reading,
        )


def update_interval(messages: int) -> float:
    """Least seconds between two page updates of a turn, for a chat of `messages` messages.

    Args:
        messages: Messages in the chat before the turn.
    """
    return min(
        MAX_UPDATE_INTERVAL_S, max(UPDATE_INTERVAL_S, messages * UPDATE_INTERVAL_PER_MESSAGE_S)
    )


def _queued_retry(
    session: Session, claimed: bool, history: list[Message]
) -> tuple[list[Message], bool]:
    """A retry that waited for a stopped turn to end its step: the chat to run it on (the
    stopped turn's last chat without its answer) and whether Stop cancelled it meanwhile
    (then the chat keeps the stopped answer and nothing runs)."""
    queued, session.retry_after_stop = session.retry_after_stop, False
    if not claimed:
        return history, False
    stopped = history
    if session.live_turn is not None:  # its last chat is published just after the claim frees
        for chat in session.live_turn.follow():
            stopped = chat
    return (stopped, True) if not queued else (_without_last_answer(stopped), False)


def _without_last_answer(history: list[Message]) -> list[Message]:
    """The chat up to and including the last user message."""
    for index in range(len(history) - 1, -1, -1):
        if history[index].get("role") == "user":
            return list(history[: index + 1])
    return list(history)


def _file_path(item: Any) -> str | None:
    """The path of one file of a MultimodalTextbox value: a path, a dict, or gradio's
    `FileData` (not imported here: this module must not load gradio)."""
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        return item.get("path")
    return getattr(item, "path", None)
