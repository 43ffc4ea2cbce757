"""One conversation: its agent (built on first use or prepared ahead), folders and turn claim.

`smolui.sessions.registry.SessionRegistry` keeps these by conversation id.
"""

from __future__ import annotations

import logging
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.loop.agent import MultiStepAgent
from smolui.uploads.folders import (
    conversation_folder,
    delete_session_folder,
    empty_session_folder,
    session_folder,
)

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


@dataclass(eq=False)
class Session:
    """One conversation: its agent (made on first use), upload folder and bookkeeping.

    Args:
        id: The conversation id (a secret shared with one browser).
        folder: Name of its upload and media folders (never the id: paths reach the model
            and the page); kept by the conversation store.
        upload_root: Parent of the owners' upload folders; this conversation's
            (`<upload_root>/<owner folder>/<folder>`) is created on demand.
        make_agent: Builds the agent the first time it is needed, given the upload folder.
        media_root: Parent of the folders where images and audio the agent produced are
            written for display (None: no media folder).
        clock: Monotonic clock, injectable for tests.
        owner: Whose conversation it is (the browser's owner key), once known.
        keep_files: Leave the upload and media folders in place on close (the store's chat
            still shows them; deleting the conversation deletes them).
        restore: Called with the agent right after it is built (memory from the store).
        resume_note: One line for the model on the next turn (variables were lost), or None.
        model: The model spec this conversation's agent is built with (None: the app's
            default); set before the agent is built (see `prepare`).
    """

    id: str
    folder: str
    upload_root: Path
    make_agent: Callable[[Path], Any]
    media_root: Path | None = None
    clock: Callable[[], float] = time.monotonic
    created: float = 0.0
    last_used: float = 0.0
    closing_at: float | None = None
    pages: set[str] = field(default_factory=set)
    files: list[Any] = field(default_factory=list)
    last_request: dict[str, Any] | None = None
    owner: str | None = None
    keep_files: bool = False
    restore: Callable[[MultiStepAgent], None] | None = None
    resume_note: str | None = None
    model: str | None = None
    saved_files: int = 0
    live_turn: Any = None  # the running (or last) turn's LiveTurn, for pages that reattach
    stop_requested: threading.Event = field(default_factory=threading.Event)
    retry_after_stop: bool = False  # a Retry waits for the stopped turn to end its step
    _agent: MultiStepAgent | None = None
    _closed: bool = False
    _files_owner: str | None = None  # the owner its folders were placed under...
    _files_placed: bool = False  # ...fixed the first time a folder is asked for
    _agent_lock: threading.Lock = field(default_factory=threading.Lock)
    _turn_lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.created = self.last_used = self.clock()

    def _files_root(self, root: Path) -> Path:
        """The owner's folder under `root`, where this conversation's folder is. Fixed the
        first time it is asked for, so files never move while the agent reads them."""
        if not self._files_placed:
            self._files_owner, self._files_placed = self.owner, True
        return conversation_folder(root, self._files_owner, self.folder).parent

    @property
    def upload_dir(self) -> Path:
        """This conversation's private upload folder."""
        return self._files_root(self.upload_root) / self.folder

    @property
    def media_dir(self) -> Path | None:
        """Where produced images and audio are written for display (None: nowhere)."""
        if self.media_root is None:
            return None
        return self._files_root(self.media_root) / self.folder

    @property
    def agent(self) -> MultiStepAgent:
        """The conversation's agent, built by the factory on first access.

        Raises:
            RuntimeError: The conversation was closed.
            TypeError: The factory returned something that is not an agent.
        """
        with self._agent_lock:
            if self._closed:
                raise RuntimeError("This conversation was closed; start a new one.")
            if self._agent is None:
                logger.info("creating the agent of a new conversation")
                # The folder exists before the agent: a sandbox worker started early (see
                # `prepare`) can only be granted access to a folder that exists.
                folder = session_folder(self._files_root(self.upload_root), self.folder)
                model = () if self.model is None else (self.model,)
                agent = self.make_agent(folder, *model)
                if not isinstance(agent, MultiStepAgent):
                    raise TypeError(
                        "The agent factory must return an agent (a MultiStepAgent such as "
                        f"CodeAgent or ToolCallingAgent), not {type(agent).__name__}."
                    )
                if self.restore is not None:
                    self.restore(agent)
                self._agent = agent
            return self._agent

    @property
    def built_agent(self) -> MultiStepAgent | None:
        """The agent if it was built already, else None (never builds one)."""
        return self._agent

    @property
    def has_agent(self) -> bool:
        """True once the agent was built (and until the conversation closes)."""
        return self._agent is not None

    @property
    def has_history(self) -> bool:
        """True once a turn ran here (or the conversation was resumed from the store)."""
        agent = self._agent
        ran = agent is not None and bool(agent.memory.steps)
        return ran or self.live_turn is not None or self.restore is not None

    def use_model(self, spec: str | None) -> bool:
        """Build this conversation's agent with the model `spec` (None: the app's default).

        Only a conversation without history changes model: an agent prepared already for
        another model is closed, and the next `prepare` (or turn) builds the new one.
        Returns False, changing nothing, when the conversation has history or a turn runs.

        Args:
            spec: A model spec the app's factory accepts, or None.
        """
        if spec == self.model:
            return True
        if self.has_history or self.busy:
            return False
        with self._agent_lock:
            agent, self._agent = self._agent, None
            self.model = spec
        if agent is not None:
            try:
                agent.close()
            except Exception:
                logger.exception("closing an agent prepared for another model failed")
        return True

    def prepare(self) -> threading.Thread | None:
        """Build the agent and start its executor in the background (the page just opened).

        The visitor's first message then finds both ready instead of waiting for them. A
        failure is logged and left for the first turn, which builds the agent again and shows
        the error. Returns the thread, or None when there is nothing to prepare.
        """
        if self._agent is not None or self._closed:
            return None
        thread = threading.Thread(target=self._prepare, name="smolui-prepare", daemon=True)
        thread.start()
        return thread

    def _prepare(self) -> None:
        try:
            agent = self.agent
            agent.warm_up()
            if self._agent is not agent and not self._closed:  # replaced by `use_model`
                agent.close()  # it was closed before this warm-up started its executor
        except Exception:
            logger.warning("preparing a conversation's agent failed", exc_info=True)

    @property
    def busy(self) -> bool:
        """True while a turn runs."""
        return self._turn_lock.locked()

    def touch(self) -> None:
        """Mark the conversation as used now (it is evicted after idle time)."""
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
        if agent is not None:
            agent.interrupt()

    def reset(self) -> None:
        """Forget the conversation: agent memory, executor variables and uploaded files."""
        agent = self._agent
        if agent is not None:
            agent.reset()
        self.files.clear()
        self.last_request = None
        self.restore = self.resume_note = None  # stored memory must not come back either
        self.saved_files = 0
        # The folder stays: the sandbox's access is to it.
        empty_session_folder(self._files_root(self.upload_root), self.folder)
        self._delete_media()

    def close(
        self, release: Callable[[MultiStepAgent], None] | None = None, interrupt: bool = True
    ) -> None:
        """Free the agent (closing its executor) and delete the upload folder.

        Args:
            release: Gives the agent back to its factory instead of closing it.
            interrupt: Interrupt a running turn first (False: its turn waits for a person's
                answer at shutdown and is left waiting, to resume after the restart).
        """
        with self._agent_lock:
            agent, self._agent = self._agent, None
            self._closed = True
        if agent is not None:
            if self.busy and interrupt:
                agent.interrupt()
            try:
                if release is not None:
                    release(agent)
                else:
                    agent.close()
            except Exception:
                logger.exception("closing a conversation's agent failed")
        if self.keep_files:  # the stored chat still shows these files
            return
        _delete_folder(self._files_root(self.upload_root), self.folder)
        self._delete_media()

    def _delete_media(self) -> None:
        if self.media_root is not None:
            _delete_folder(self._files_root(self.media_root), self.folder)


def _delete_folder(root: Path, folder: str) -> None:
    try:
        delete_session_folder(root, folder)
    except ValueError:  # not a plain folder inside the root: leave it, never follow it
        logger.warning("left a conversation folder that is not a plain folder", exc_info=True)
