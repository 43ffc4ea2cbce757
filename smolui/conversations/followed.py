"""The conversations whose agent the app let go because another branch is shown.

Their next turn resumes from the store as any resumed conversation does, but nothing was
reopened: the person switched branches. The page is not told "reopened from storage" for
that turn (the model is still told its variables are gone).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

# Conversations remembered as let go for a branch; beyond this the oldest are forgotten (a
# forgotten one only shows the "reopened" notice on its next turn).
FOLLOWED_KEPT = 4096


class FollowedBranches:
    """The conversations whose agent was let go because another branch is shown, until
    their next turn: that turn's resume is the app's doing, not a reopened conversation,
    so the page gets no "reopened from storage" notice (the model still gets its note).
    """

    def __init__(self, kept: int = FOLLOWED_KEPT):
        self.kept = kept
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, conversation_id: str) -> None:
        """Remember that this conversation's agent was let go for a branch.

        Args:
            conversation_id: Which conversation.
        """
        with self._lock:
            self._ids[conversation_id] = None
            self._ids.move_to_end(conversation_id)
            while len(self._ids) > self.kept:
                self._ids.popitem(last=False)

    def take(self, conversation_id: str) -> bool:
        """Whether this conversation's agent was let go for a branch since its last turn
        (asked once per turn: the answer is forgotten).

        Args:
            conversation_id: Which conversation.
        """
        with self._lock:
            return self._ids.pop(conversation_id, 0) is None


__all__ = ["FOLLOWED_KEPT", "FollowedBranches"]
