"""One API call's turn, through the page's turn path: the conversation is opened and claimed,
the user's message is kept at once, the gate (sign-in, limits, the queue) admits it, and the
`TurnRunner` runs it in a server thread that saves it to the store, as for the page."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from smolui.api.access import Caller
from smolui.api.request_files import RequestFiles
from smolui.auth import Identity
from smolui.conversations.interrupted import is_interrupted, shared_store, with_interrupted_note
from smolui.conversations.keeper import ConversationKeeper
from smolui.observability.observer import NoTurnObserver, TurnObserver
from smolui.render.messages import Message, render_notice
from smolui.sessions import ConversationUnavailableError, Session, SessionRegistry
from smolui.turns.admission import Admission, TurnAdmission
from smolui.turns.config import HandlerConfig
from smolui.turns.pending import PendingTurn
from smolui.turns.runner import TurnRunner
from smolui.turns.start import admit, begin

BUSY_WAIT_S = 60.0  # as the page: a just-stopped run finishes its step first
BUSY = "The agent is still busy with the previous message of this conversation. Try again shortly."
NOT_FOUND = "No conversation of yours has this id."
_REFUSAL_MARK = str(render_notice("", "⚠️")["content"])  # how the gate's refusal starts


class TurnRefused(Exception):
    """The turn may not run; the message says why, as the page says it.

    Args:
        message: For the client.
        status: HTTP status: 400 (its files do not fit the conversation), 404 (not your
            conversation), 409 (busy), 429 (over a limit, the queue full) or 401 (not
            signed in).
    """

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.message, self.status = message, status


@dataclass
class ApiTurn:
    """A turn that passed the gate's first look (it may still wait in the queue).

    Args:
        session: Its conversation.
        chat: The conversation's chat with the new user message.
        gate: The rest of the gate (the queue wait), then its admission.
        run: Runs the admitted turn, yielding the whole chat as it changes.
    """

    session: Session
    chat: list[Message]
    gate: Generator[tuple[list[Message], str], None, Admission | None]
    run: Callable[[Admission], Iterator[tuple[list[Message], str]]]
    last: list[Message] = field(default_factory=list)

    @property
    def conversation_id(self) -> str:
        """The conversation's id."""
        return self.session.id

    def updates(self) -> Iterator[tuple[list[Message], bool]]:
        """This turn's messages (the chat after the user's message) as they change, and
        whether it still waits: queue notices while it waits, then the steps, the answer
        and the footer. `last` keeps the last of them."""
        base = len(self.chat)
        try:
            while True:
                chat, _ = next(self.gate)
                self.last = chat[base:]
                yield self.last, True
        except StopIteration as done:
            admission = done.value
        if admission is None:  # it left the queue: the last notice says so
            return
        for chat, _ in self.run(admission):
            self.last = chat[base:]
            yield self.last, False


class ApiTurns:
    """Starts API turns on the app's conversations.

    Args:
        registry: The live conversations.
        config: The handlers' settings (uploads, steps).
        keeper: The conversation store (None: nothing is kept, nothing is continued).
        observer: Hears each turn (the app's metrics).
        admission: The app's gate (None: every turn starts at once).
    """

    def __init__(
        self,
        registry: SessionRegistry,
        config: HandlerConfig,
        keeper: ConversationKeeper | None = None,
        observer: TurnObserver | None = None,
        admission: TurnAdmission | None = None,
    ):
        self.registry, self.keeper, self.admission = registry, keeper, admission
        self.files = RequestFiles(config.policy, config.max_files)
        self.runner = TurnRunner(config, observer or NoTurnObserver(), self._save)

    def owns(self, owner: str, conversation_id: str) -> bool:
        """Whether `owner` owns this conversation (live or stored).

        Args:
            owner: Who asks.
            conversation_id: The conversation.
        """
        live = self.registry.get(conversation_id)
        if live is not None:
            return live.owner == owner
        return self.keeper is not None and self.keeper.find(owner, conversation_id) is not None

    def start(
        self,
        caller: Caller,
        task: str,
        conversation_id: str | None = None,
        files: Sequence[str] = (),
    ) -> ApiTurn:
        """Claim the conversation (a new one for None) and pass the gate's first look.

        Args:
            caller: Who asks.
            task: The user's message ("" for a message of files only).
            conversation_id: The conversation to continue, which `caller` must own.
            files: The message's files, written and checked (`RequestFiles.save`): the turn
                ingests them as the page's uploads.

        Raises:
            TurnRefused: Not theirs, busy, the files do not fit the conversation, or the
                gate refused it (its message, as the page shows it); nothing ran.
        """
        if conversation_id is not None and not self.owns(caller.owner, conversation_id):
            raise TurnRefused(NOT_FOUND, 404)
        try:
            session = self.registry.open(conversation_id)
        except ConversationUnavailableError as error:
            raise TurnRefused(str(error), 503) from None
        if session.owner is None:
            session.owner = caller.owner
        # After the owner is set: the upload folder's place is fixed when first asked for.
        no_room = self.files.room_refusal(session.upload_dir, list(files)) if files else None
        if no_room is not None:
            raise TurnRefused(no_room, 400)
        session, claimed = self.registry.claim(session, wait=BUSY_WAIT_S)
        if not claimed:
            raise TurnRefused(BUSY, 409)
        # As the page shows a message: each file, then the text.
        said = [{"role": "user", "content": {"path": path}} for path in files]
        said += [{"role": "user", "content": task}] if task else []
        chat = self._chat(caller.owner, session) + said
        begin(session, chat, self._save)
        pending = PendingTurn.message(task, files)
        gate = admit(self.admission, session, pending, caller.identity, chat, self._save)
        try:
            first, _ = next(gate)
        except StopIteration as done:  # admitted at once (no queue wait)
            first, gate = None, _admitted(done.value)
        refusal = _refusal(first[len(chat) :]) if first is not None else None
        if refusal is not None:
            gate.close()  # the refused turn already ended and was kept as refused
            raise TurnRefused(refusal, 401 if _sign_in_refusal(self.admission, refusal) else 429)
        if first is not None:
            gate = _prepend(first, gate)

        def run(admission: Admission) -> Iterator[tuple[list[Message], str]]:
            return self.runner.run(session, pending, chat, admission, caller.identity)

        return ApiTurn(session, chat, gate, run)

    def _chat(self, owner: str, session: Session) -> list[Message]:
        """The conversation's chat so far (kept whole again when the turn is saved), with
        the interrupted note when its last turn died with another process
        (`smolui.conversations.interrupted`); called once the turn is claimed."""
        if self.keeper is None:
            return []
        record = self.keeper.find(owner, session.id)
        if record is None:
            return []
        dead = is_interrupted(record, session, shared_store(self.keeper.store))
        return with_interrupted_note(self.keeper.chat(record), dead)

    def _save(self, session: Session, chat: list[Message], state: str) -> bool:
        if self.keeper is None or session.owner is None:
            return True
        return self.keeper.save(session, chat, state)


def _refusal(messages: list[Message]) -> str | None:
    """The gate's refusal in the messages it added (a warning notice), or None."""
    for item in messages:
        content = item.get("content")
        if isinstance(content, str) and content.startswith(_REFUSAL_MARK):
            return content[len(_REFUSAL_MARK) :]
    return None


def _sign_in_refusal(admission: TurnAdmission | None, refusal: str) -> bool:
    sign_in = admission.sign_in if admission is not None else None
    return sign_in is not None and refusal == sign_in.refusal(Identity())


def _admitted(admission: Admission | None) -> Generator[Any, None, Admission | None]:
    return admission
    yield  # a generator that returns at once


def _prepend(first: Any, rest: Generator[Any, None, Any]) -> Generator[Any, None, Any]:
    yield first
    return (yield from rest)
