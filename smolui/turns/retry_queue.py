"""Retry pressed while a stopped turn still ends its step: the retry waits, then runs on
the stopped turn's chat without its answer (unless Stop cancelled it meanwhile). The stopped
answer stays as a version, as with any Retry."""

from __future__ import annotations

from collections.abc import Callable

from smolui.render.messages import Message
from smolui.sessions import Session

KeepAnswer = Callable[[Session, list[Message]], None]


def queued_retry(
    session: Session,
    claimed: bool,
    history: list[Message],
    keep_answer: KeepAnswer | None = None,
) -> tuple[list[Message], bool]:
    """A retry that waited for a stopped turn to end its step.

    Args:
        session: The conversation.
        claimed: Whether the retry's turn claimed the conversation.
        history: The chat the page showed.
        keep_answer: Keeps the stopped answer as a version once the stopped turn has saved
            it (`smolui.conversations.branches.answer_keeper`; None: nothing is stored).

    Returns:
        The chat to run it on (the stopped turn's last chat without its answer) and
        whether Stop cancelled it meanwhile (then the chat keeps the stopped answer and
        nothing runs).
    """
    queued, session.retry_after_stop = session.retry_after_stop, False
    if not claimed:
        return history, False
    stopped = history
    if session.live_turn is not None:  # its last chat is published just after the claim frees
        for chat in session.live_turn.follow():
            stopped = chat
    if not queued:
        return stopped, True
    if keep_answer is not None:  # the stopped turn saved its chat before publishing its end
        keep_answer(session, stopped)
    return without_last_answer(stopped), False


def without_last_answer(history: list[Message]) -> list[Message]:
    """The chat up to and including the last user message.

    Args:
        history: The chat.
    """
    for index in range(len(history) - 1, -1, -1):
        if history[index].get("role") == "user":
            return list(history[: index + 1])
    return list(history)
