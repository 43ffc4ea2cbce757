"""The conversation registry: one agent per conversation, created lazily, evicted when unused.

A conversation is keyed by an unguessable id that the browser keeps (`gr.BrowserState`), not by
the page's session hash, so a reload finds the same agent. Closing the page starts a grace
period instead of evicting at once; idle conversations and those beyond a cap are evicted
too. Eviction closes the agent's executor and deletes the conversation's upload folder.
"""

from __future__ import annotations

import inspect
import logging
import re
import secrets
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{22}$")


def new_conversation_id() -> str:
    """A fresh conversation id: 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


def is_conversation_id(value: Any) -> bool:
    """Whether `value` has the shape of an id made by `new_conversation_id`.

    Args:
        value: Anything the browser sent.
    """
    return isinstance(value, str) and bool(_ID_PATTERN.match(value))


class SessionCapacityError(RuntimeError):
    """Every agent slot is busy; the visitor must try again later."""


@dataclass(eq=False)
class Session:
    """One conversation: its agent (made on first use), upload folder and bookkeeping.

    Args:
        id: The conversation id (a secret shared with one browser).
        upload_dir: This conversation's private upload folder (created on demand).
        make_agent: Builds the agent the first time it is needed.
        media_dir: Where images and audio the agent produced are written for display.
        clock: Monotonic clock, injectable for tests.
    """

    id: str
    upload_dir: Path
    make_agent: Callable[[Path], Any]
    media_dir: Path | None = None
    clock: Callable[[], float] = time.monotonic
    created: float = 0.0
    last_used: float = 0.0
    closing_at: float | None = None
    pages: set[str] = field(default_factory=set)
    files: list[dict[str, Any]] = field(default_factory=list)
    last_request: dict[str, Any] | None = None
    stop_requested: threading.Event = field(default_factory=threading.Event)
    _agent: Any = None
    _agent_lock: threading.Lock = field(default_factory=threading.Lock)
    _turn_lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.created = self.last_used = self.clock()

    @property
    def agent(self) -> Any:
        """The conversation's agent, built by the factory on first access."""
        with self._agent_lock:
            if self._agent is None:
                logger.info("creating the agent of a new conversation")
                self._agent = self.make_agent(self.upload_dir)
            return self._agent

    @property
    def has_agent(self) -> bool:
        return self._agent is not None

    @property
    def busy(self) -> bool:
        """True while a turn runs."""
        return self._turn_lock.locked()

    def touch(self) -> None:
        self.last_used = self.clock()

    def begin_turn(self, wait: float = 0.0) -> bool:
        """Claim the conversation for one turn; False when another turn holds it.

        The claim is released by `end_turn`, called once the agent's run has really ended
        (a stopped turn keeps it until the agent reaches its step boundary).

        Args:
            wait: Seconds to wait for a running turn to finish (e.g. one just stopped).
        """
        acquired = (
            self._turn_lock.acquire(timeout=wait) if wait > 0 else self._turn_lock.acquire(False)
        )
        if acquired:
            self.stop_requested.clear()
            self.touch()
        return acquired

    def end_turn(self) -> None:
        """Release the claim taken by `begin_turn`."""
        self.touch()
        self._turn_lock.release()

    def request_stop(self) -> None:
        """Ask the running turn to stop: the UI stops at once, the agent at its next step."""
        self.stop_requested.set()
        agent = self._agent
        if agent is not None and hasattr(agent, "interrupt"):
            agent.interrupt()

    def reset(self) -> None:
        """Forget the conversation: agent memory, executor variables and uploaded files."""
        agent = self._agent
        if agent is not None:
            agent.memory.reset()
            executor = getattr(agent, "executor", None)
            if executor is not None and hasattr(executor, "reset"):
                executor.reset()
        self.files.clear()
        self.last_request = None
        _remove_folder(self.upload_dir)
        if self.media_dir is not None:
            _remove_folder(self.media_dir)

    def close(self, release: Callable[[Any], None] | None = None) -> None:
        """Free the agent (closing its executor) and delete the upload folder.

        Args:
            release: Gives the agent back to its factory instead of closing it.
        """
        with self._agent_lock:
            agent, self._agent = self._agent, None
        if agent is not None:
            if hasattr(agent, "interrupt") and self.busy:
                agent.interrupt()
            try:
                (release or close_agent)(agent)
            except Exception:
                logger.exception("closing a conversation's agent failed")
        _remove_folder(self.upload_dir)
        if self.media_dir is not None:
            _remove_folder(self.media_dir)


def close_agent(agent: Any) -> None:
    """Release what an agent holds: its executor (a worker process) and its managed agents.

    Args:
        agent: The agent to close.
    """
    close = getattr(agent, "close", None)
    if callable(close):
        close()
    else:
        executor = getattr(agent, "executor", None)
        if executor is not None and hasattr(executor, "close"):
            executor.close()
    for managed in (getattr(agent, "managed_agents", None) or {}).values():
        close_agent(managed)


def _remove_folder(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)


class SessionRegistry:
    """Live conversations, keyed by conversation id. Thread-safe.

    Args:
        factory: Builds an agent; called with the conversation's upload folder if it takes
            an argument, else with none.
        upload_root: Parent of the per-conversation upload folders.
        idle_s: Evict a conversation unused for this long.
        grace_s: After the last page of a conversation closes, keep it this long.
        max_sessions: Most conversations alive at once; beyond it the least recently used
            idle one is evicted.
        clock: Monotonic clock, injectable for tests.
        media_root: Parent of the per-conversation media folders (None: no media folder).
    """

    def __init__(
        self,
        factory: Callable[..., Any],
        upload_root: str | Path = "uploads",
        idle_s: float = 1800.0,
        grace_s: float = 300.0,
        max_sessions: int = 32,
        clock: Callable[[], float] = time.monotonic,
        media_root: str | Path | None = None,
    ):
        self.factory = factory
        self.upload_root = Path(upload_root)
        self.media_root = Path(media_root) if media_root is not None else None
        self.idle_s = idle_s
        self.grace_s = grace_s
        self.max_sessions = max_sessions
        self.clock = clock
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()
        self._sweeper: threading.Thread | None = None
        self._stop_sweeper = threading.Event()
        self._make_agent = _adapt_factory(factory)

    def __len__(self) -> int:
        return len(self._sessions)

    def __contains__(self, conversation_id: object) -> bool:
        return conversation_id in self._sessions

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
        evicted: list[Session] = []
        with self._lock:
            session = (
                self._sessions.get(conversation_id) if is_conversation_id(conversation_id) else None
            )
            if session is None:
                evicted = self._make_room()
                session = self._new_session()
            session.closing_at = None
            session.touch()
            if page:
                session.pages.add(page)
        self._close(evicted, "over the session cap")
        return session

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
            expired = [
                s for s in self._sessions.values()
                if not s.busy and (
                    (s.closing_at is not None and now >= s.closing_at)
                    or now - s.last_used >= self.idle_s
                )
            ]  # fmt: skip
            for session in expired:
                del self._sessions[session.id]
        self._close(expired, "idle or closed")
        return [s.id for s in expired]

    def close_all(self) -> None:
        """Evict everything and stop the sweeper (server shutdown)."""
        self._stop_sweeper.set()
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        self._close(sessions, "shutdown")

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

    def _new_session(self) -> Session:
        conversation_id = new_conversation_id()
        while conversation_id in self._sessions:  # 128 bits: never, but cheap to be sure
            conversation_id = new_conversation_id()
        # The folder name is not the id: paths reach the model and the page, the id must not.
        folder_name = secrets.token_hex(8)
        media = self.media_root / folder_name if self.media_root is not None else None
        session = Session(
            conversation_id,
            self.upload_root / folder_name,
            self._make_agent,
            media,
            clock=self.clock,
        )
        self._sessions[conversation_id] = session
        return session

    def _make_room(self) -> list[Session]:
        if len(self._sessions) < self.max_sessions:
            return []
        idle = sorted((s for s in self._sessions.values() if not s.busy), key=lambda s: s.last_used)
        if not idle:
            raise SessionCapacityError(
                f"All {self.max_sessions} conversation slots are busy; please try again shortly."
            )
        victims = idle[: len(self._sessions) - self.max_sessions + 1]
        for session in victims:
            del self._sessions[session.id]
        return victims

    def _close(self, sessions: list[Session], reason: str) -> None:
        release = getattr(self.factory, "release", None)
        for session in sessions:
            logger.info("evicting a conversation (%s)", reason)
            session.close(release if callable(release) else None)


def _adapt_factory(factory: Callable[..., Any]) -> Callable[[Path], Any]:
    """Call `factory(upload_dir)` if it takes an argument, else `factory()`."""
    try:
        params = [
            p for p in inspect.signature(factory).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
        ]  # fmt: skip
    except (TypeError, ValueError):
        params = []
    if params:
        return lambda upload_dir: factory(upload_dir)
    return lambda upload_dir: factory()
