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


def admit(
    admission: TurnAdmission | None,
    session: Session,
    pending: PendingTurn,
    identity: Identity | None,
    chat: list[Message],
    save: Save,
) -> Generator[tuple[list[Message], str], None, Admission | None]:
    """Pass the claimed conversation's turn through the gate: signed in, under the limits,
    a free slot (its place in the queue shown meanwhile).

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
    if admission is None:
        return Admission(None, [], None)
    try:
        entered = admission.enter(identity or Identity(), session.owner, pending, session.id)
    except Exception:
        session.end_turn()
        raise
    if isinstance(entered, str):
        refused = chat + [render_notice(entered, "⚠️")]
        end_unstarted(session, refused, save)
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
            end_unstarted(session, chat + [render_notice(LEFT_QUEUE, "ℹ️")], save)
            entered.release()
            session.end_turn()
    if not admitted:
        yield chat + [render_notice(LEFT_QUEUE, "ℹ️")], session.id
        return None
    return entered
