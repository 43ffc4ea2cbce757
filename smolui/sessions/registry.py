"""The conversation registry: one agent per conversation, created lazily, evicted when unused.

A conversation is keyed by an unguessable id that the browser keeps (`gr.BrowserState`), not by
the page's session hash, so a reload finds the same agent. Closing the page starts a grace
period instead of evicting at once; idle conversations and those beyond a cap are evicted
too. Eviction closes the agent's executor and deletes the conversation's upload folder; with a
conversation store attached (`resume`, `keep_files`), eviction keeps the files and an id that is
not live is brought back from the store under the same id (`smolui.sessions.resumed`, built by
`smolui.conversations.keeper`). Agents come from the factory the registry is given
(`smolui.sessions.factories`).

An evicted conversation with nothing to remember yet (no turn ran) is not in the store, so the
registry remembers its id, owner, folder and model (`smolui.sessions.released`: bounded per owner
and in total, and kept in the store across restarts when `released_store` is set): it comes back
under the same id and owner, and its first turn is saved like any other.

A turn claims its conversation with `claim` after `open`: a conversation evicted in between (by
another visitor's page open past the cap) is opened again under its own id, and that one is
claimed, so the turn never runs on a closed agent.

Who makes room past the cap: a conversation with a running turn never; then, least recently used
first within each group, (1) conversations whose agent holds nothing (no turn yet, or not built),
(2) those of an owner with several live conversations, (3) an owner's only one. So a flood of
page opens or "New chat" clicks evicts its own conversations before an active visitor's agent.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from agents.loop.agent import MultiStepAgent
from smolui.sessions.factories import AgentLender, adapt_factory
from smolui.sessions.released import Released, ReleasedList, ReleasedStore
from smolui.sessions.resumed import Resumed
from smolui.sessions.session import Session, is_conversation_id, new_conversation_id
from smolui.sessions.shutdown import stop_turns

logger = logging.getLogger(__name__)

MOST_PAGES = 64  # open pages a conversation tracks (a page that never says it closed stays)
CLAIM_TRIES = 3  # a conversation evicted again each time it is reopened: give up, say busy


class ConversationUnavailableError(RuntimeError):
    """A conversation cannot be opened now; the message says why, for the visitor."""


class SessionCapacityError(ConversationUnavailableError):
    """Every agent slot is busy; the visitor must try again later."""


class SessionRegistry:
    """Live conversations, keyed by conversation id. Thread-safe.

    Args:
        factory: Builds an agent; called with the conversation's upload folder if it takes
            an argument, else with none. An `AgentLender` gets each agent back when its
            conversation ends; other agents are closed.
        upload_root: Parent of the per-conversation upload folders.
        idle_s: Evict a conversation unused for this long.
        grace_s: After the last page of a conversation closes, keep it this long.
        max_sessions: Most conversations alive at once; beyond it one is evicted in the
            order the module docstring gives (never one with a running turn).
        clock: Monotonic clock, injectable for tests.
        media_root: Parent of the per-conversation media folders (None: no media folder).
        resume: Looks up a conversation that is not live (evicted, restarted, another
            replica) by id; returns how to bring it back, or None when it does not exist.
            Raises `ConversationUnavailableError` when it exists but cannot be opened.
        keep_files: Eviction leaves upload and media folders (a store still shows them).
        released_store: Keeps evicted conversations with no turn yet across restarts
            (None: in memory only).
    """

    def __init__(
        self,
        factory: Callable[..., MultiStepAgent],
        upload_root: str | Path = "uploads",
        idle_s: float = 1800.0,
        grace_s: float = 300.0,
        max_sessions: int = 32,
        clock: Callable[[], float] = time.monotonic,
        media_root: str | Path | None = None,
        resume: Callable[[str], Resumed | None] | None = None,
        keep_files: bool = False,
        released_store: ReleasedStore | None = None,
    ):
        self.factory = factory
        self.upload_root = Path(upload_root)
        self.media_root = Path(media_root) if media_root is not None else None
        self.idle_s = idle_s
        self.grace_s = grace_s
        self.max_sessions = max_sessions
        self.clock = clock
        self._sessions: dict[str, Session] = {}
        self._released = ReleasedList()
        self._lock = threading.Lock()
        self._sweeper: threading.Thread | None = None
        self._stop_sweeper = threading.Event()
        self._make_agent = adapt_factory(factory)
        self.resume = resume
        self.keep_files = keep_files
        self.released_store = released_store

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, conversation_id: object) -> bool:
        return conversation_id in self._sessions

    def sessions(self) -> list[Session]:
        """The live conversations now (a copy: safe to iterate while others change)."""
        with self._lock:
            return list(self._sessions.values())

    def get(self, conversation_id: Any) -> Session | None:
        """The live conversation with this id, or None (unknown, evicted or forged).

        Args:
            conversation_id: The id the browser sent.
        """
        if not is_conversation_id(conversation_id):
            return None
        with self._lock:
            return self._sessions.get(conversation_id)

    def open(self, conversation_id: Any = None, page: str | None = None) -> Session:
        """Find the conversation with this id, or start a fresh one under a new id.

        An unknown or malformed id never picks an existing conversation: it gets a new id.

        Args:
            conversation_id: The id the browser sent, if any.
            page: The page's session hash, so closing the page starts the grace period.

        Raises:
            SessionCapacityError: The cap is reached and every conversation is busy.
        """
        self.sweep()
        valid = is_conversation_id(conversation_id)
        evicted: list[Session] = []
        resumed = kept = released = None
        if valid and conversation_id not in self._sessions:  # outside the lock: the database
            resumed = self.resume(conversation_id) if self.resume is not None else None
            if resumed is None and conversation_id not in self._released:
                kept = self._kept(conversation_id)
        with self._lock:
            session = self._sessions.get(conversation_id) if valid else None
            if session is None:
                evicted = self._make_room()
                released = self._released.take(conversation_id) if valid else None
                released = released or kept
                back = resumed is not None or released is not None
                session = self._new_session(conversation_id if back else None, resumed, released)
            session.closing_at = None
            session.touch()
            if page:
                _add_page(session, page)
        if released is not None and self.released_store is not None:
            self._forget_kept(session.id)  # live again: a later eviction keeps it anew
        self._close(evicted, "over the session cap")
        return session

    def claim(
        self, session: Session, page: str | None = None, wait: float = 0.0
    ) -> tuple[Session, bool]:
        """Claim a conversation `open` returned for one turn, as `Session.begin_turn` does.

        If it was evicted since `open` (it was idle, so the cap could take it), its id is
        opened again (from the released list or the store) and that conversation is claimed:
        the turn runs under the same id and owner, never on a closed agent.

        Args:
            session: What `open` returned.
            page: The page's session hash, as given to `open`.
            wait: Seconds to wait for a running turn to finish.

        Returns:
            The conversation to run the turn on, and whether it was claimed (False: another
            turn holds it, or there was no room to bring it back).
        """
        for _ in range(CLAIM_TRIES):
            if not session.begin_turn(wait):
                return session, False
            with self._lock:  # claimed: no eviction takes it from here on, except `evict`
                live = self._sessions.get(session.id) is session
            if live:
                return session, True
            session.end_turn()
            logger.info("a conversation was evicted before its turn claimed it; reopening it")
            try:
                reopened = self.open(session.id, page)
            except ConversationUnavailableError:
                return session, False
            if reopened.owner is None:  # deleted meanwhile (a new id): still the same owner's
                reopened.owner = session.owner
            session = reopened
        return session, False

    def page_closed(self, page: str) -> None:
        """A page went away (`demo.unload`): its conversations start their grace period.

        Args:
            page: The closed page's session hash.
        """
        with self._lock:
            for session in self._sessions.values():
                if page in session.pages:
                    session.pages.discard(page)
                    if not session.pages:
                        session.closing_at = self.clock() + self.grace_s

    def evict(self, conversation_id: str, reason: str = "requested") -> bool:
        """Drop a conversation now. Returns whether it was alive.

        Args:
            conversation_id: Which conversation.
            reason: Logged.
        """
        with self._lock:
            session = self._sessions.pop(conversation_id, None)
        if session is None:
            return False
        self._close([session], reason)
        return True

    def sweep(self) -> list[str]:
        """Evict conversations past their grace period or idle too long; busy ones stay."""
        now = self.clock()
        with self._lock:
            expired = [s for s in self._sessions.values() if self._expired(s, now)]
            for session in expired:
                del self._sessions[session.id]
            self._remember(expired)
        self._close(expired, "idle or closed")
        return [s.id for s in expired]

    def _expired(self, session: Session, now: float) -> bool:
        """Past its grace period or idle too long, and not busy."""
        if session.busy:
            return False
        closing = session.closing_at is not None and now >= session.closing_at
        return closing or now - session.last_used >= self.idle_s

    def close_all(
        self, wait_s: float = 0.0, held: Callable[[str], bool] | None = None
    ) -> list[str]:
        """Evict everything and stop the sweeper (server shutdown), letting running turns
        stop first (`smolui.sessions.shutdown.stop_turns`): each is interrupted and has up
        to `wait_s` seconds to reach its step boundary and save its stopped state; one still
        running then is stopped where it is, what its page shows saved, before it closes.
        A turn waiting for a person (`held`) is left waiting: its agent closes without
        interrupting it, and its action, kept in the store, is answered after the restart.

        Args:
            wait_s: Seconds to wait for running turns to reach their step boundary (0: do
                not wait; they are only interrupted).
            held: Says, by conversation id, whether its turn waits for a person's answer
                (`ChatApprovals.held_here`); None: no turn does.

        Returns:
            The ids of the conversations whose turn had not saved its end when they were
            closed (their store may still say "running").
        """
        self._stop_sweeper.set()
        current = self.sessions()
        waiting = {s.id for s in current if s.busy and held is not None and held(s.id)}
        running = [s for s in current if s.id not in waiting]
        unfinished = stop_turns(running, wait_s)  # before anything closes
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        self._close(sessions, "shutdown", waiting)
        return [s.id for s in unfinished]

    def start_sweeper(self, interval_s: float = 30.0) -> None:
        """Sweep in a daemon thread every `interval_s` seconds (idempotent).

        Args:
            interval_s: Seconds between sweeps.
        """
        if self._sweeper is not None and self._sweeper.is_alive():
            return
        self._stop_sweeper.clear()

        def loop() -> None:
            while not self._stop_sweeper.wait(interval_s):
                try:
                    self.sweep()
                except Exception:
                    logger.exception("session sweep failed")

        self._sweeper = threading.Thread(target=loop, name="smolui-session-sweeper", daemon=True)
        self._sweeper.start()

    def _new_session(
        self,
        conversation_id: str | None = None,
        resumed: Resumed | None = None,
        released: Released | None = None,
    ) -> Session:
        if conversation_id is None:
            conversation_id = new_conversation_id()
            while conversation_id in self._sessions:  # 128 bits: never, but cheap to be sure
                conversation_id = new_conversation_id()
        # The folder name is not the id: paths reach the model and the page, the id must not.
        if resumed is not None:
            folder_name = resumed.folder
        elif released is not None:
            folder_name = released.folder
        else:
            folder_name = secrets.token_hex(8)
        session = Session(
            conversation_id,
            folder_name,
            self.upload_root,
            self._make_agent,
            self.media_root,
            clock=self.clock,
            keep_files=self.keep_files,
        )
        if resumed is not None:
            session.owner, session.restore = resumed.owner, resumed.restore
            session.files, session.resume_note = list(resumed.files), resumed.note
            session.saved_files = len(session.files)
            session.model = resumed.model
            resumed.based_on(session)
        elif released is not None:  # nothing to restore: it had no turn
            session.owner, session.model = released.owner, released.model
        self._sessions[conversation_id] = session
        return session

    def _make_room(self) -> list[Session]:
        if len(self._sessions) < self.max_sessions:
            return []
        live = Counter(s.owner for s in self._sessions.values() if s.owner is not None)

        def order(session: Session) -> tuple[bool, bool, float]:
            holds = session.has_agent and session.has_history  # variables a turn made
            sole = session.owner is not None and live[session.owner] == 1
            return holds, sole, session.last_used

        idle = sorted((s for s in self._sessions.values() if not s.busy), key=order)
        if not idle:
            raise SessionCapacityError(
                f"All {self.max_sessions} conversation slots are busy; please try again shortly."
            )
        victims = idle[: len(self._sessions) - self.max_sessions + 1]
        for session in victims:
            del self._sessions[session.id]
        self._remember(victims)
        return victims

    def _close(self, sessions: list[Session], reason: str, waiting: Collection[str] = ()) -> None:
        release = self.factory.release if isinstance(self.factory, AgentLender) else None
        for session in sessions:
            logger.info("evicting a conversation (%s)", reason)
            if session.id in waiting:  # its turn is left waiting for its answer
                session.close(interrupt=False)
            else:
                session.close(release)
            if self.released_store is not None and session.id in self._released:
                self._keep(session)

    def _remember(self, sessions: list[Session]) -> None:
        """Under the lock, as they leave: keep evicted conversations' ids and owners when no
        turn ran yet (they are not in the store, and without them the next message would
        start a conversation nobody owns: answered, never saved). Ones with history come back
        from the store instead. Done under the lock so that no `open` in between misses it."""
        for session in sessions:
            if session.owner is not None and not session.has_history:
                released = Released(session.owner, session.folder, session.model)
                self._released.keep(session.id, released)

    def _keep(self, session: Session) -> None:
        """Keep a released conversation in the store too (a restart then still knows it)."""
        try:
            self.released_store.keep(session.id, session.owner, session.folder, session.model)
        except Exception:  # the database is down: the in-memory entry still serves
            logger.warning("could not keep a released conversation in the store", exc_info=True)

    def _kept(self, conversation_id: str) -> Released | None:
        """A released conversation the store kept (an earlier process evicted it)."""
        if self.released_store is None:
            return None
        try:
            found = self.released_store.find(conversation_id)
        except Exception:
            logger.warning("could not read released conversations from the store", exc_info=True)
            return None
        return Released(*found) if found is not None else None

    def _forget_kept(self, conversation_id: str) -> None:
        try:
            self.released_store.forget(conversation_id)
        except Exception:  # it stays remembered: coming back again later is harmless
            logger.warning("could not drop a released conversation from the store", exc_info=True)


def _add_page(session: Session, page: str) -> None:
    """Track an open page of `session`, at most `MOST_PAGES`: past it one is forgotten (pages
    whose close never arrived; at worst the grace period starts while one is still open, and
    the conversation comes back from the store when it is used)."""
    if page not in session.pages and len(session.pages) >= MOST_PAGES:
        session.pages.pop()
    session.pages.add(page)
