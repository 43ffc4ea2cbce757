"""Turn handlers: what the message box and the buttons do. `smolui.ui.wiring` connects them.

Handlers return plain values (chat message dicts, strings); gradio is imported only where
an update object is needed. Each handler finds its conversation in the registry by the id
the page holds, so two visitors never share an agent.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from smolui.auth import Identity
from smolui.conversations.branches import Branches, answer_keeper
from smolui.conversations.keeper import ConversationKeeper
from smolui.handlers.side_panel import SidePanel
from smolui.observability.observer import NoTurnObserver, TurnObserver
from smolui.render.about import ServerFacts
from smolui.render.approval import withdrawn
from smolui.render.messages import Message, PassingNotice, render_notice
from smolui.sessions import ConversationUnavailableError, Session, SessionRegistry
from smolui.sessions.model_choice import fall_back_if_gone
from smolui.turns.admission import TurnAdmission
from smolui.turns.config import HandlerConfig
from smolui.turns.early_stop import StopsBeforeStart
from smolui.turns.holders import holders
from smolui.turns.pending import PendingTurn
from smolui.turns.resumed import ResumedTurns
from smolui.turns.retry_queue import queued_retry, without_last_answer
from smolui.turns.runner import (
    MAX_UPDATE_INTERVAL_S,
    NOT_SAVED_NOTICE,
    STOP_NOTE,
    UPDATE_INTERVAL_S,
    TurnRunner,
    update_interval,
)
from smolui.turns.start import begin, enter, refuse, wait_for_slot
from smolui.turns.turn_files import TurnFiles
from smolui.turns.unsent import UnsentMessages

__all__ = [
    "MAX_UPDATE_INTERVAL_S",
    "NOT_SAVED_NOTICE",
    "RELEASED_NOTICE",
    "RESUMED_NOTICE",
    "STOP_NOTE",
    "UPDATE_INTERVAL_S",
    "ChatHandlers",
    "HandlerConfig",
    "update_interval",
]

logger = logging.getLogger(__name__)

BUSY_WAIT_S = 60.0  # a just-stopped run finishes its step before the next one may start
RESUMED_NOTICE = (
    "This conversation was reopened from storage: the agent remembers it, but variables "
    "from earlier code are gone."
)
GIVEN_BACK_NOTICE = (
    "This message was not sent: a page that opened this conversation meanwhile has it back "
    "in its message box."
)
RELEASED_NOTICE = (
    "The agent of this conversation was released (idle too long or the server restarted), "
    "so it does not remember the earlier messages."
)


class ChatHandlers:
    """The app's behaviour, bound to a session registry.

    Args:
        registry: The live conversations.
        config: App-level settings the handlers use.
        keeper: Saves each conversation when a turn starts and ends (None: nothing is kept).
        observer: Hears each turn's events and outcome (the app's metrics).
        admission: The gate before each turn: sign-in, per-user limits, the turn queue
            (None: every turn starts at once).
        files: Keeps the files each turn's code wrote and lists them under the answer
            (None: they are not offered).
        about: How the server keeps conversations, for the panel's "About this server"
            (`smolui.render.about.server_facts`; None: the defaults).
    """

    def __init__(
        self,
        registry: SessionRegistry,
        config: HandlerConfig,
        keeper: ConversationKeeper | None = None,
        observer: TurnObserver | None = None,
        admission: TurnAdmission | None = None,
        files: TurnFiles | None = None,
        about: ServerFacts | None = None,
    ):
        self.registry = registry
        self.about = about
        self.config = config
        self.keeper = keeper
        self.observer: TurnObserver = observer or NoTurnObserver()
        self.admission = admission
        self.files = files
        self.runner = TurnRunner(config, self.observer, self._save, files)
        self.panel = SidePanel(registry, config, keeper, files, about, self._stored_chat)
        # Shown but not started: a reload in between gives them back (`smolui.turns.unsent`).
        self.unsent = UnsentMessages()
        # Shown, and Stop pressed before their turn arrived: they stop as it arrives.
        self.early_stops = StopsBeforeStart()
        if config.approvals is not None:  # an action held before a restart resumes its turn
            named = lambda owner: holders(self.keeper, config.approvals, owner)  # noqa: E731
            resumed = ResumedTurns(registry, self.runner, self._save, self._stored_chat,
                                   lambda: self.admission, named)  # fmt: skip
            config.approvals.resume_with(resumed)

    # -- one turn ---------------------------------------------------------------------------

    def echo(
        self,
        message: dict[str, Any] | None,
        history: list[Message],
        conversation_id: str | None = None,
    ) -> tuple[list[Message], PendingTurn | None]:
        """Show the user's message at once and remember it as the pending request; it is
        held for the conversation until its turn starts (`UnsentMessages`).

        Args:
            message: The MultimodalTextbox value (`{"text", "files"}`).
            history: The chat so far.
            conversation_id: The page's conversation id (None: nothing is held).

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
        pending = self.unsent.hold(conversation_id, PendingTurn.message(text, files))
        self.early_stops.expect(conversation_id, pending)
        return shown, pending

    def run_turn(
        self,
        pending: PendingTurn | None,
        history: list[Message],
        conversation_id: str | None,
        page: str | None = None,
        identity: Identity | None = None,
    ) -> Iterator[tuple[list[Message], str | None]]:
        """Run the agent on the pending request and stream the rendered events.

        Args:
            pending: What `echo` (or a retry) left; None: nothing runs.
            history: The chat including the user's message.
            conversation_id: The page's conversation id.
            page: The page's session hash (to start the grace period when it closes).
            identity: Who sends it (sign-in and per-user limits); None: an anonymous visitor.

        Yields:
            The chat and the conversation id (new if the old one was gone).
        """
        history = list(history or [])
        if pending is None:
            yield history, conversation_id
            return
        if not self.unsent.take(conversation_id, pending):  # a reopened page has it back
            yield history + [render_notice(GIVEN_BACK_NOTICE, "ℹ️")], conversation_id
            return
        try:
            session = self.registry.open(conversation_id, page)
        except ConversationUnavailableError as error:
            yield history + [render_notice(str(error), "⚠️")], conversation_id
            return
        notes = self._notes(session, conversation_id)
        session, claimed = self.registry.claim(session, page, wait=BUSY_WAIT_S)
        stopped_early = self.early_stops.arrived(conversation_id, pending)
        if pending.after_stop:  # a Retry pressed while a stopped turn ended its step
            keep = answer_keeper(self.keeper, self.registry)  # the stopped answer stays
            history, cancelled = queued_retry(session, claimed, history, keep)
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
        # Claimed: no turn waits on an action the chat still shows (its app is gone).
        chat = withdrawn(history) + notes
        if stopped_early:
            yield self._stopped_before_start(session, pending, chat)
            return
        named = holders(self.keeper, self.config.approvals, session.owner)
        entered = enter(self.admission, session, pending, identity, named)
        if isinstance(entered, str):  # refused before anything is kept or shown elsewhere
            yield self._refused(session, pending, chat, entered)
            return
        begin(session, chat, self._save)
        admission = yield from wait_for_slot(entered, session, chat, self._save)
        if admission is not None:
            yield from self.runner.run(session, pending, chat, admission, identity)

    def _refused(
        self, session: Session, pending: PendingTurn, chat: list[Message], refusal: str
    ) -> tuple[list[Message], str]:
        """End a claimed turn the gate refused. An edit or a Retry that started a branch
        leaves no version behind: the chat it came from shows again, the refusal told once
        (a toast). A message is kept with the refusal, after the server's own chat (a page
        can send any history; a refused visitor must not be able to store it)."""
        restored = self._take_back(session, pending)
        if restored is not None:
            return restored + [PassingNotice(refusal)], session.id
        stored = self._stored_chat(session)
        if stored is not None:
            note = refuse(session, stored + _user_messages(pending), refusal, self._save)
        else:  # the stored chat cannot be read: keep nothing rather than the page's
            note = render_notice(refusal, "⚠️")
            session.end_turn()
        return chat + [note], session.id

    def _take_back(self, session: Session, pending: PendingTurn) -> list[Message] | None:
        """The chat shown before the branch this turn was to answer, when that branch was
        started for it (an edit, a Retry) and is now undone; None otherwise. Releases the
        claim when it undoes one."""
        if self.keeper is None or session.owner is None:
            return None
        branches = Branches(self.keeper, self.registry)
        try:
            restored = branches.take_back(session.id)
        except Exception:  # the store is unreachable: refused as any message is
            logger.warning("could not undo a refused turn's branch", exc_info=True)
            return None
        if restored is None:
            return None
        session.end_turn()
        if not pending.retry:  # an edit: the agent forgot its last turn or holds the new path
            branches.follow(session.id)
        return restored

    def _stopped_before_start(
        self, session: Session, pending: PendingTurn, chat: list[Message]
    ) -> tuple[list[Message], str]:
        """End a claimed turn whose Stop came before it arrived: nothing runs, the message
        is kept (after the server's own chat, as for a refusal) with the stop note."""
        note = render_notice(STOP_NOTE, "■")
        stored = self._stored_chat(session)
        if stored is not None:  # unreadable: keep nothing rather than the page's chat
            self._save(session, stored + _user_messages(pending) + [note], "idle")
        session.end_turn()
        return chat + [note], session.id

    def _notes(self, session: Session, conversation_id: str | None) -> list[Message]:
        """Notices for the page before the turn: the conversation was reopened from the
        store, its agent was released, or its model is gone (it then uses the default). An
        agent let go because another branch is shown was not reopened: no notice."""
        notes: list[Message] = []
        followed = self.keeper is not None and self.keeper.followed.take(session.id)
        if session.resume_note and not followed:
            notes.append(render_notice(RESUMED_NOTICE, "ℹ️"))
        if conversation_id and session.id != conversation_id:
            notes.append(render_notice(RELEASED_NOTICE, "ℹ️"))
        config = self.config
        gone = fall_back_if_gone(session, config.model_available, config.model_label())
        if gone is not None:
            notes.append(render_notice(gone, "ℹ️"))
        return notes

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

    def _stored_chat(self, session: Session) -> list[Message] | None:
        """The conversation's chat as the server keeps it ([] when nothing is stored), or
        None when the store cannot be read."""
        if self.keeper is None or session.owner is None:
            return []
        try:
            record = self.keeper.find(session.owner, session.id)
            return self.keeper.chat(record) if record is not None else []
        except Exception:  # the database is down, or the record is damaged
            logger.warning("could not read a conversation's stored chat", exc_info=True)
            return None

    def _save(self, session: Session, chat: list[Message], state: str) -> bool:
        """Keep the conversation in the store (True when there is no store)."""
        if self.keeper is None or session.owner is None:
            return True
        return self.keeper.save(session, chat, state)

    # -- controls ---------------------------------------------------------------------------

    def stop(self, conversation_id: str | None) -> bool:
        """Stop the running turn: the page at once, the agent at its next step; or the turn
        of a message the page shows whose turn has not arrived yet (it will not run).

        Args:
            conversation_id: The page's conversation id.

        Returns:
            Whether there was a turn to stop.
        """
        session = self.registry.get(conversation_id)
        if session is not None and session.busy:
            session.request_stop()
            return True
        return self.early_stops.stop(conversation_id)

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
    ) -> tuple[list[Message], PendingTurn | None]:
        """Drop the last answer from the chat and ask `run_turn` to run the request again.

        Args:
            history: The chat.
            conversation_id: The page's conversation id.
        """
        session = self.registry.get(conversation_id)
        if session is None or session.last_request is None or session.busy:
            return history, None
        return without_last_answer(history), PendingTurn.retry_last()

    def side_panel(
        self,
        conversation_id: str | None,
        pending: PendingTurn | None = None,
        owner: str | None = None,
    ) -> str:
        """The side panel's Markdown for this conversation (`smolui.handlers.side_panel`).

        Args:
            conversation_id: The page's conversation id.
            pending: The message a turn is starting with (None: no turn starts now).
            owner: Whose page asks (None: only a live conversation is described).
        """
        return self.panel(conversation_id, pending, owner)


def _user_messages(pending: PendingTurn) -> list[Message]:
    """The user's message as the server shows it (as `echo` does): its files, then its text;
    nothing for a retry (its message is already in the chat)."""
    shown: list[Message] = [{"role": "user", "content": {"path": path}} for path in pending.files]
    if pending.text:
        shown.append({"role": "user", "content": pending.text})
    return shown


def _file_path(item: Any) -> str | None:
    """The path of one file of a MultimodalTextbox value: a path, a dict, or gradio's
    `FileData` (not imported here: this module must not load gradio)."""
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        return item.get("path")
    return getattr(item, "path", None)  # gradio's FileData: naming it would import gradio
