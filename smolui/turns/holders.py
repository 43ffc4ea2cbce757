"""Which of a person's conversations holds their turn slot, in their words: its title as the
conversation list shows it, and whether its turn only waits for them to answer an action.

The queue knows conversation ids only; a refused turn (`UserLimitReached`) names the
conversations with what `holders` returns, so the person knows where to go and what to do.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from smolui.turns.queue import Describe, Holder

logger = logging.getLogger(__name__)


class Titles(Protocol):
    """Finds a person's stored conversation (`ConversationKeeper.find`)."""

    def find(self, owner: str, conversation_id: str) -> Any:
        """The owner's conversation (with its `title`), or None when it is not theirs."""
        ...


class Waiting(Protocol):
    """Says whether a conversation has an action waiting (`ChatApprovals.waiting`)."""

    def waiting(self, conversation_id: str) -> Any:
        """The conversation's action waiting for an answer, or None."""
        ...


def holders(titles: Titles | None, approvals: Waiting | None, owner: str | None) -> Describe:
    """Describes a conversation id for `owner`: None for one that is not theirs (another
    browser at the same address holds the slot), whose title must not be shown.

    Args:
        titles: The stored conversations (None: nothing is stored, nothing is named).
        approvals: The app's approvals (None: approval is off on this server).
        owner: Whose turn is refused (None: nobody's yet, nothing is named).
    """

    def describe(conversation_id: str) -> Holder | None:
        if titles is None or owner is None:
            return None
        try:
            record = titles.find(owner, conversation_id)
            if record is None:
                return None
            waits = approvals is not None and approvals.waiting(conversation_id) is not None
        except Exception:  # the store is unreachable: the refusal names nothing
            logger.warning("could not name the conversation holding a turn", exc_info=True)
            return None
        return Holder(record.title, waits)

    return describe
