"""A running turn's chat, kept on the server so any page can follow it.

The turn runs in a server thread and publishes the chat after every batch of events; the page
that sent the message, a reloaded page or a second tab follow the same `LiveTurn`. Closing every
page does not stop the turn (Stop does), and the last page to arrive still sees all of it.

The pages shown a turn part-way (each may reattach once) are bounded: past `MOST_PAGES` the
oldest is forgotten (it still shows the chat it was given; it no longer follows the turn).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

FOLLOW_POLL_S = 0.5  # a follower wakes at least this often to notice the end
MOST_PAGES = 64  # pages that may reattach to one turn; past it the oldest may not


class LiveTurn:
    """The chat of one running turn, published version by version.

    Args:
        chat: The chat when the turn starts.
    """

    def __init__(self, chat: list[dict[str, Any]]):
        self._condition = threading.Condition()
        self._chat = list(chat)
        self._version = 0
        self._done = False
        self._pages: dict[str, None] = {}  # an ordered set: the oldest goes first

    def publish(self, chat: list[dict[str, Any]], done: bool = False) -> None:
        """Make `chat` the turn's current chat; `done` ends every follower.

        Args:
            chat: The whole chat as it should be shown now.
            done: True for the turn's last chat.
        """
        with self._condition:
            self._chat = list(chat)
            self._version += 1
            self._done = self._done or done
            self._condition.notify_all()

    @property
    def done(self) -> bool:
        """True once the turn's last chat is published."""
        return self._done

    def shown_to(self, page: str | None) -> list[dict[str, Any]]:
        """The chat now, for a page that opens the conversation; that page may then `follow`.

        Args:
            page: The page's session hash.
        """
        with self._condition:
            if page:
                self._pages.pop(page, None)
                self._pages[page] = None
                while len(self._pages) > MOST_PAGES:
                    del self._pages[next(iter(self._pages))]
            return list(self._chat)

    def claim(self, page: str | None) -> bool:
        """Whether `page` was shown this turn part-way (by `shown_to`) and should follow it;
        true once per showing, even when the turn ended in between.

        Args:
            page: The page's session hash.
        """
        with self._condition:
            if page in self._pages:
                del self._pages[page]
                return True
            return False

    def follow(self) -> Iterator[list[dict[str, Any]]]:
        """The chat now, then each new version until the turn is done (the last one included)."""
        seen = -1
        while True:
            with self._condition:
                if self._version == seen and not self._done:
                    self._condition.wait(FOLLOW_POLL_S)
                version, chat, done = self._version, list(self._chat), self._done
            if version != seen:
                seen = version
                yield chat
            if done and version == seen:
                return
