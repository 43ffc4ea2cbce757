"""The turn itself: run the agent in a server thread, publish its messages to the live
turn, save the conversation, end the turn. Pages follow the live turn; a page that goes
away leaves the turn running for the next page to follow, only Stop stops it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from smolui.approvals import TurnApprovals
from smolui.auth import Identity
from smolui.observability.observer import TurnObserver, TurnObservers
from smolui.render.attachments import mark_refused
from smolui.render.media import MediaSink
from smolui.render.messages import Message, render_notice
from smolui.sessions import Session
from smolui.turns.admission import Admission
from smolui.turns.config import HandlerConfig
from smolui.turns.pending import PendingTurn
from smolui.turns.request import Prepared, prepare_request
from smolui.turns.start import Save
from smolui.turns.turn import AgentTurn, TurnRequest
from smolui.turns.turn_files import TurnFiles

UPDATE_INTERVAL_S = 0.05  # at most 20 page updates a second while tokens stream...
# ...fewer in a long chat: gradio processes the whole chat again for every update (about
# 0.2 ms per message here), so the interval grows with the chat's length, up to a second.
# That holds a streaming conversation to about a tenth of a core however long it gets.
UPDATE_INTERVAL_PER_MESSAGE_S = 0.002
MAX_UPDATE_INTERVAL_S = 1.0
# Said once the page has stopped the turn: from here on nothing of it shows or runs (a model
# call in flight ends unread, running code is killed), so it is not "stopping" but stopped.
STOP_NOTE = "Stopped. Send a message to continue from here."
NOT_SAVED_NOTICE = (
    "This conversation could not be saved just now (the database is unreachable); "
    "it will be saved as soon as the database is back."
)


def update_interval(messages: int) -> float:
    """Least seconds between two page updates of a turn, for a chat of `messages` messages.

    Args:
        messages: Messages in the chat before the turn.
    """
    return min(
        MAX_UPDATE_INTERVAL_S, max(UPDATE_INTERVAL_S, messages * UPDATE_INTERVAL_PER_MESSAGE_S)
    )


class TurnRunner:
    """Runs admitted turns.

    Args:
        config: App-level settings (uploads, steps, memory reset).
        observer: Hears each turn's events and outcome (the app's metrics).
        save: Keeps the conversation in the store.
        files: Keeps the files each turn's code wrote, listed under the answer (None: not).
    """

    def __init__(
        self,
        config: HandlerConfig,
        observer: TurnObserver,
        save: Save,
        files: TurnFiles | None = None,
    ):
        self.config = config
        self.observer = observer
        self.save = save
        self.files = files

    def run(
        self,
        session: Session,
        pending: PendingTurn,
        history: list[Message],
        admission: Admission,
        identity: Identity | None = None,
        request: TurnRequest | None = None,
    ) -> Iterator[tuple[list[Message], str]]:
        """Start the turn in a server thread and follow it.

        Args:
            session: The claimed conversation (its live turn made by `turn_start.begin`).
            pending: The message (or retry) to run.
            history: The chat including the user's message.
            admission: The gate's admission, released when the turn ends.
            identity: Who sends it (None: an anonymous visitor).
            request: The request ready-made (a resumed turn's), instead of `pending`'s.

        Yields:
            The chat and the conversation id.
        """
        files = MediaSink(session.media_dir) if session.media_dir is not None else None
        turn = AgentTurn(files, TurnObservers(self.observer, admission), STOP_NOTE)
        live = session.live_turn
        live.publish(history + turn.messages)
        thread = threading.Thread(
            target=self._drive,
            args=(session, pending, turn, history, admission, identity, request),
            name="smolui-turn-view",
            daemon=True,
        )
        thread.start()
        for chat in live.follow():
            yield chat, session.id

    def _drive(
        self,
        session: Session,
        pending: PendingTurn,
        turn: AgentTurn,
        history: list[Message],
        admission: Admission,
        identity: Identity | None = None,
        request: TurnRequest | None = None,
    ) -> None:
        """The whole turn, whoever watches (a thread): prepare the request, run the agent,
        publish its messages to the live turn, save the conversation, end the turn (traced
        with the conversation id and the signed-in user, never a browser key)."""
        live, started, written = session.live_turn, False, None
        try:
            agent = session.agent
            config = self.config
            if request is not None:  # ready-made: a resumed turn's
                prepared = Prepared(request)
            else:
                prepared = prepare_request(session, agent, pending, config.policy,
                                           config.max_files, config.upload_room)  # fmt: skip
            history = mark_refused(history, prepared.refused) + prepared.notes
            if prepared.request is None:
                live.publish(history, done=True)
                return
            self.save(session, history, "running")
            written = self.files.begin(session) if self.files is not None else None
            # The open step shows under the action from the first hold (no event may come first).
            shown = self._approvals(session, agent, history + turn.messages, admission)
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
                shown.show(history + messages)
        except Exception as error:
            turn.fail(error)
        finally:
            if not started:
                session.end_turn()
            admission.release()  # the next turn in the queue may start
        chat = history + turn.messages
        if written is not None:  # the files the code wrote, under the answer
            chat += self.files.finish(session, written)
        # Saved before the page sees the end: a finished turn is a saved turn.
        if not self.save(session, chat, turn.state):
            chat = chat + [render_notice(NOT_SAVED_NOTICE, "⚠️")]
        live.publish(chat, done=True)

    def _approvals(
        self, session: Session, agent: Any, chat: list[Message], slot: Admission
    ) -> TurnApprovals:
        """The turn's chat as pages see it: with approval on for the conversation, the agent
        asks through it (its pending action shown under the steps, and kept in the store)."""
        live = session.live_turn
        if self.config.approvals is None:
            return TurnApprovals(live.publish, chat=chat)
        keep = lambda shown: self.save(session, shown, "running")  # noqa: E731
        return self.config.approvals.begin_turn(session, agent, live.publish, keep, chat, slot)
