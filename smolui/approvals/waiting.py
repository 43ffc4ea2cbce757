"""How a turn shows and waits for its pending approval.

`TurnApprovals` puts the pending action into the chat a turn publishes (under the steps the
follower renders, paused while it waits), and keeps that chat in the store as pages see it
(again whenever the follower's chat changes while it waits: the step shows after the hold),
so a page opened after a restart or on another replica shows what the live page showed.
`AnswerBell` wakes the waiting turns of this process as soon as a page answers; answers given
on another replica are read from the store on the next poll.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from smolui.render.approval import paused

Message = dict[str, Any]
POLL_S = 1.0  # a waiting turn reads the store this often (answers from another replica)


class AnswerBell:
    """Rung when a page of this process answers an approval; waiting turns wake up."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._rings = 0

    def ring(self) -> None:
        """Wake every waiting turn (each reads its own approval from the store)."""
        with self._condition:
            self._rings += 1
            self._condition.notify_all()

    @property
    def rings(self) -> int:
        """How often it has rung so far (a waiter takes this before it looks at the store)."""
        with self._condition:
            return self._rings

    def wait(self, timeout: float, since: int | None = None) -> None:
        """Wait for a ring after `since` (default: from now on), at most `timeout` seconds.

        Args:
            timeout: Seconds.
            since: `rings` as it was before the waiter last looked: a ring that came while
                it looked ends the wait at once instead of being missed.
        """
        with self._condition:
            rings = self._rings if since is None else since
            self._condition.wait_for(lambda: self._rings != rings, timeout)


class TurnApprovals:
    """A turn's chat as pages see it: the follower's chat, then the pending action if any.

    Args:
        publish: Shows a chat to every page following the turn.
        keep: Saves a chat as the conversation's (the turn still running); None: not kept.
        chat: The chat when the turn starts (shown under a pending action that comes before
            the follower's first update).
    """

    def __init__(
        self,
        publish: Callable[[list[Message]], None],
        keep: Callable[[list[Message]], Any] | None = None,
        chat: list[Message] | None = None,
    ):
        self._publish = publish
        self._keep = keep
        self._lock = threading.Lock()  # the follower and the waiting agent thread both publish
        self._chat: list[Message] = list(chat or [])
        self._held: list[Message] = []
        self._keeping = threading.Lock()  # one write at a time, the newest chat last
        self._kept: list[Message] | None = None

    def show(self, chat: list[Message]) -> None:
        """Publish the follower's chat (with the pending action under it, while one waits).

        Args:
            chat: The whole chat as the turn's follower renders it.
        """
        with self._lock:
            self._chat = list(chat)
            self._publish(self._shown())
            held = bool(self._held)
        if held:  # the step the action belongs to may come after the hold
            self._keep_shown()

    def hold(self, held: list[Message]) -> None:
        """Show these messages under the chat until the next `hold` ([] removes them); a
        pending action is also kept in the store with the chat.

        Args:
            held: The pending action's message, or [] once it is answered.
        """
        with self._lock:
            self._held = list(held)
            self._publish(self._shown())
        if held:
            self._keep_shown()

    def _keep_shown(self) -> None:
        """Keep the chat as pages see it while an action is held (a write only when it
        changed); a resumed turn leaves the paused step and the card out
        (`smolui.render.approval.before_the_wait`)."""
        if self._keep is None:
            return
        with self._keeping:
            with self._lock:  # taken now: of two writes in a row the later is the newer
                if not self._held:
                    return
                kept = self._shown()
            if kept == self._kept:
                return
            self._kept = kept
            self._keep(kept)

    def _shown(self) -> list[Message]:
        """The chat as pages see it: while an action is held its steps are paused (no
        spinner, no running timer) and the action is under them (holding the lock)."""
        if not self._held:
            return list(self._chat)
        return paused(self._chat) + self._held
