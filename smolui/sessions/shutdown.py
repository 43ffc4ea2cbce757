"""Running turns at shutdown: stopped at their step boundary and saved before their
conversations close (`SessionRegistry.close_all`).

A turn ends in two events: its agent's run ends (the conversation's claim is released), then
the turn's thread saves its last chat and publishes it (`smolui.turns.runner`). The store
closes after both, or the turn's last step is lost and its thread writes to a closed store.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from smolui.sessions.session import Session

logger = logging.getLogger(__name__)

# A turn stopped where it is (past the wait for its step boundary) saves what its page shows
# at once; this bounds the wait for that save (the wait ends when the save does).
STOPPED_SAVE_S = 2.0
POLL_S = 0.05


def stop_turns(sessions: list[Session], wait_s: float) -> list[Session]:
    """Interrupt the running turns of `sessions` and wait up to `wait_s` seconds for each to
    reach its step boundary and save its stopped state; one still running then is stopped
    where it is (`Session.request_stop`: what its page shows is saved, up to
    `STOPPED_SAVE_S` more), its agent left in its step.

    Args:
        sessions: The conversations about to close (without those whose turn is left
            waiting for a person: `SessionRegistry.close_all`).
        wait_s: Seconds to wait for the step boundaries (0: do not wait, only interrupt).

    Returns:
        Those whose turn had not saved its end (the store may still say "running").
    """
    running = [s for s in sessions if _running(s)]
    for session in running:
        agent = session.built_agent
        if agent is not None:  # not `request_stop`: its page follows it to the end
            agent.interrupt()
    if running:
        logger.info("stopping %d running turn(s) at their next step", len(running))
    if wait_s <= 0:
        return running
    running = _wait_while(_running, running, time.monotonic() + wait_s)
    for session in running:  # past the wait: save what its page shows, now
        session.request_stop()
    running = _wait_while(_unsaved, running, time.monotonic() + STOPPED_SAVE_S)
    if running:
        logger.warning("%d turn(s) did not end in time; closing them as they are", len(running))
    return running


def _running(session: Session) -> bool:
    """Whether a turn holds the conversation or has not yet saved its end."""
    return session.busy or _unsaved(session)


def _unsaved(session: Session) -> bool:
    """Whether the conversation's turn has not yet saved its end (its last chat published)."""
    live = session.live_turn
    return live is not None and not live.done


def _wait_while(
    condition: Callable[[Session], bool], sessions: list[Session], deadline: float
) -> list[Session]:
    """Wait until `condition` holds for none of `sessions`, or the deadline; return those it
    still holds for. Polled: the two events of a turn's end belong to other objects (the
    claim's lock, the live turn) that offer no wait for both."""
    left = [s for s in sessions if condition(s)]
    while left and time.monotonic() < deadline:
        time.sleep(POLL_S)
        left = [s for s in left if condition(s)]
    return left
