"""Which conversation each page shows, so that a turn's updates reach a page only while it
shows that turn's conversation.

A page's turn event follows its conversation's turn, which runs in a server thread of its
own. When the person opens another conversation in the same tab ("+ New chat", a pick in
the list) mid-turn, the turn goes on and is kept, but the page must show the other
conversation alone, and its next message must be able to start: gradio holds back a page's
next turn event while the one before is still running. `PageViews.while_shown` therefore
hands a stream's updates to the page only while the page shows the stream's conversation,
and ends the page's event soon after it moves on, however long the turn waits (a slow step,
an action waiting for approval); the stream itself is drained to its end in a thread.
"""

from __future__ import annotations

import contextvars
import logging
import queue
import threading
from collections import OrderedDict
from collections.abc import Callable, Generator, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

logger = logging.getLogger(__name__)

MOST_PAGES = 4096  # pages remembered; past it the oldest is forgotten (it is then unguarded)
CHECK_S = 0.1  # how often a page's event waiting for its turn's next update looks up
STREAMS_END_S = 5.0  # the most an opening waits for the page's earlier events to end

_LEFT = object()  # the page is opening another conversation: no stream writes into it
_END = object()
_NOTHING = object()  # no item came while the reader waited


class PageViews:
    """The conversation each page shows (by the page's session hash), and the streams that
    write into each page.

    Args:
        most_pages: Pages remembered at once.
        check_s: How often a stream waiting for an update looks at what its page shows.
    """

    def __init__(self, most_pages: int = MOST_PAGES, check_s: float = CHECK_S):
        self._shown: OrderedDict[str, Any] = OrderedDict()
        self._streams: dict[str, int] = {}
        self._changed = threading.Condition()
        self._most = most_pages
        self._check_s = check_s

    def show(self, page: str | None, conversation_id: str | None) -> None:
        """The page shows this conversation now.

        Args:
            page: The page's session hash (None: nothing is remembered).
            conversation_id: The conversation it shows.
        """
        self._set(page, conversation_id)

    def leave(self, page: str | None) -> None:
        """The page is opening another conversation: streams writing into it stop.

        Args:
            page: The page's session hash (None: nothing changes).
        """
        self._set(page, _LEFT)

    def forget(self, page: str | None) -> None:
        """The page closed.

        Args:
            page: The page's session hash.
        """
        with self._changed:
            self._shown.pop(page, None)
            self._changed.notify_all()

    def shows(self, page: str | None, conversation_id: str | None) -> bool:
        """Whether updates of this conversation may go to the page: it shows it, or nothing
        is known of the page (an event from no page, a page forgotten past the bound).

        Args:
            page: The page's session hash.
            conversation_id: The conversation the updates belong to.
        """
        with self._changed:
            if page is None or page not in self._shown:
                return True
            return self._shown[page] == conversation_id

    def wait_quiet(self, page: str | None, timeout: float = STREAMS_END_S) -> bool:
        """Wait until no stream writes into the page (each notices `leave` within `check_s`).
        Returns whether none does.

        Args:
            page: The page's session hash.
            timeout: The most seconds to wait.
        """
        with self._changed:
            return self._changed.wait_for(lambda: not self._streams.get(page), timeout)

    def while_shown(
        self,
        page: str | None,
        conversation_id: str | None,
        stream: Iterator[T],
        id_of: Callable[[T], str | None] | None = None,
    ) -> Iterator[T]:
        """The stream's items while the page shows `conversation_id`; it ends soon after the
        page opens another conversation, and the stream then goes on, unread, to its end. A
        page that goes away (gradio closes this generator) closes the stream, as before.

        Args:
            page: The page's session hash (None: the stream as it is).
            conversation_id: The conversation the stream belongs to.
            stream: The updates for the page.
            id_of: The conversation id an item carries: a turn reopened under a new id moves
                the page's view with it (None: items carry none).
        """
        if page is None:
            yield from stream
            return
        following = [conversation_id]  # moves with a turn reopened under a new id
        self._streaming(page, +1)
        try:
            relay = _Relay(stream)
            for item in relay.items(lambda: self.shows(page, following[0]), self._check_s):
                moved_to = id_of(item) if id_of is not None else None
                if moved_to and moved_to != following[0]:
                    self._move(page, following[0], moved_to)
                    following[0] = moved_to
                yield item
        except GeneratorExit:
            relay.close()
            raise
        finally:
            self._streaming(page, -1)

    def _set(self, page: str | None, value: Any) -> None:
        if page is None:
            return
        with self._changed:
            self._shown.pop(page, None)
            self._shown[page] = value
            while len(self._shown) > self._most:
                self._shown.popitem(last=False)
            self._changed.notify_all()

    def _move(self, page: str, old: str | None, new: str) -> None:
        with self._changed:
            if page in self._shown and self._shown[page] == old:
                self._shown[page] = new

    def _streaming(self, page: str, change: int) -> None:
        with self._changed:
            count = self._streams.get(page, 0) + change
            if count > 0:
                self._streams[page] = count
            else:
                self._streams.pop(page, None)
            self._changed.notify_all()


class _Relay:
    """Iterates a stream in a thread of its own, so its reader can stop waiting for it."""

    def __init__(self, stream: Iterator[Any]):
        self._queue: queue.Queue[Any] = queue.Queue()
        self._read = True  # False: the reader left; items are dropped, the stream drained
        self._closing = False
        # The reader's context variables (tracing, conversation attributes) go with it.
        context = contextvars.copy_context()
        thread = threading.Thread(
            target=context.run, args=(self._pump, stream), name="smolui-page-stream", daemon=True
        )
        thread.start()

    def _pump(self, stream: Iterator[Any]) -> None:
        try:
            for item in stream:
                if self._closing:
                    break
                if self._read:
                    self._queue.put(item)
        except Exception as error:  # raised again to the reader, if one is left
            if not self._read:
                logger.warning("a turn no page shows failed", exc_info=True)
            self._queue.put(_Failure(error))
        finally:
            if self._closing and isinstance(stream, Generator):
                stream.close()  # it ends as when gradio closes it
            self._queue.put(_END)

    def items(self, wanted: Callable[[], bool], check_s: float) -> Iterator[Any]:
        """The stream's items while `wanted()`; each wait for one looks again every `check_s`.

        Args:
            wanted: Whether the reader still wants the items.
            check_s: Seconds between two looks while no item comes.
        """
        while True:
            try:
                item = self._queue.get(timeout=check_s)
            except queue.Empty:
                item = _NOTHING
            if item is _END:
                return
            if isinstance(item, _Failure):
                raise item.error
            if not wanted():
                self._read = False  # the stream goes on to its end, unread
                return
            if item is not _NOTHING:
                yield item

    def close(self) -> None:
        """The reader went away: the stream is closed at its next item."""
        self._read = False
        self._closing = True


class _Failure:
    """An error the stream raised, carried to the reader."""

    def __init__(self, error: BaseException):
        self.error = error
