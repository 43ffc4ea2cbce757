"""The start of a turn: claimed, shown to every page, then through the admission gate.

Between the claim and the first model call the turn may wait (the queue, uploads): what
happens meanwhile is here, so that a refused or abandoned turn leaves the conversation
as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Generator

from smolui.auth import Identity
from smolui.render.messages import Message, render_notice
from smolui.sessions import Session
from smolui.turns.admission import LEFT_QUEUE, Admission, TurnAdmission
from smolui.turns.live import LiveTurn
from smolui.turns.pending import PendingTurn
from smolui.turns.queue import SEND_AGAIN, Describe

# Keeps a conversation in the store: (session, chat, turn state) -> saved.
Save = Callable[[Session, list[Message], str], bool]


def begin(session: Session, chat: list[Message], save: Save) -> None:
    """The turn is claimed: from now on a reloaded page, a second tab, a restarted server
    or another replica shows the user's message. Kept before the queue, the uploads and
    the first model call, each of which may take a while.

    Args:
        session: The claimed conversation.
        chat: The chat with the user's message.
        save: Keeps the conversation in the store.
    """
    session.live_turn = LiveTurn(chat)
    save(session, chat, "running")


def end_unstarted(session: Session, chat: list[Message], save: Save) -> None:
    """The claimed turn will not run (refused, left the queue): pages following it stop
    at `chat`, which is kept as the conversation's chat.

    Args:
        session: The claimed conversation.
        chat: The chat to keep.
        save: Keeps the conversation in the store.
    """
    save(session, chat, "idle")
    if session.live_turn is not None:
        session.live_turn.publish(chat, done=True)


def enter(
    admission: TurnAdmission | None,
    session: Session,
    pending: PendingTurn,
    identity: Identity | None,
    describe: Describe | None = None,
    then: str = SEND_AGAIN,
) -> Admission | str:
    """The gate's first look at the claimed conversation's turn: signed in, under the
    limits, a place in the queue. Nothing is shown or kept yet.

    Args:
        admission: The gate (None: every turn starts at once).
        session: The claimed conversation (its claim is released if the gate fails).
        pending: The request (for the gate's per-user limits).
        identity: Who sends it (None: an anonymous visitor).
        describe: Names the person's conversations holding their turn slots, for a
            refusal (None: it names none).
        then: What the person does once their slot is free, said by that refusal.

    Returns:
        The admission (wait on it with `wait_for_slot`), or the refusal for the chat.
    """
    if admission is None:
        return Admission(None, [], None)
    try:
        who = identity or Identity()
        return admission.enter(who, session.owner, pending, session.id, describe, then)
    except Exception:
        session.end_turn()
        raise


def refuse(session: Session, kept: list[Message], refusal: str, save: Save) -> Message:
    """End a claimed turn the gate refused: keep `kept` and the refusal, release the claim.

    The caller decides what is kept: the server's own chat, never one a page sent (a page
    can send any history; a refused visitor must not be able to store it).

    Args:
        session: The claimed conversation.
        kept: The chat to keep before the refusal note.
        refusal: Why the turn may not run.
        save: Keeps the conversation in the store.

    Returns:
        The refusal note, as the chat shows it.
    """
    note = render_notice(refusal, "⚠️")
    save(session, kept + [note], "idle")
    if session.live_turn is not None and not session.live_turn.done:
        session.live_turn.publish(kept + [note], done=True)
    session.end_turn()
    return note


def wait_for_slot(
    entered: Admission, session: Session, chat: list[Message], save: Save
) -> Generator[tuple[list[Message], str], None, Admission | None]:
    """Wait for a running slot, the place in the queue shown meanwhile.

    Args:
        entered: The gate's admission (`enter`).
        session: The claimed conversation.
        chat: The chat with the user's message.
        save: Keeps the conversation in the store.

    Returns:
        The admission, or None: Stop left the queue or the page went away (the claim is
        released).
    """
    admitted = False
    try:
        for text in entered.wait(session.stop_requested):
            yield chat + [render_notice(text, "ℹ️")], session.id
        admitted = entered.admitted
    finally:
        if not admitted:  # stopped, or the page went away while waiting
            end_unstarted(session, chat + [render_notice(LEFT_QUEUE, "ℹ️")], save)
            entered.release()
            session.end_turn()
    if not admitted:
        yield chat + [render_notice(LEFT_QUEUE, "ℹ️")], session.id
        return None
    return entered


def admit(
    admission: TurnAdmission | None,
    session: Session,
    pending: PendingTurn,
    identity: Identity | None,
    chat: list[Message],
    save: Save,
) -> Generator[tuple[list[Message], str], None, Admission | None]:
    """Pass the claimed conversation's turn through the gate: signed in, under the limits,
    a free slot (its place in the queue shown meanwhile). For callers whose `chat` is the
    server's own (a refusal keeps it).

    Args:
        admission: The gate (None: every turn starts at once).
        session: The claimed conversation.
        pending: The request (for the gate's per-user limits).
        identity: Who sends it (None: an anonymous visitor).
        chat: The chat with the user's message.
        save: Keeps the conversation in the store.

    Returns:
        The admission, or None: it may not run (the chat says why, Stop left the queue,
        or the page went away) and the claim is released.
    """
    entered = enter(admission, session, pending, identity)
    if isinstance(entered, str):
        yield chat + [refuse(session, chat, entered, save)], session.id
        return None
    return (yield from wait_for_slot(entered, session, chat, save))
