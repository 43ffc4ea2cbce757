"""`PageViews`: a stream's updates reach a page only while it shows the stream's conversation;
the page's reading ends soon after it moves on, however long the stream waits, and the stream
itself goes on to its end (or is closed when the page goes away)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from smolui.ui.page_views import PageViews
from tests.waiting import GENEROUS_S, wait_for


class Held:
    """A stream that yields one item, then waits for the test to let it yield the rest."""

    def __init__(self, first: object, rest: list[object]):
        self.first, self.rest = first, rest
        self.waiting = threading.Event()
        self.go_on = threading.Event()
        self.finished = threading.Event()
        self.closed = threading.Event()

    def __call__(self) -> Iterator[object]:
        try:
            yield self.first
            self.waiting.set()
            assert self.go_on.wait(GENEROUS_S), "the test lets the stream go on"
            yield from self.rest
            self.finished.set()
        except GeneratorExit:
            self.closed.set()
            raise


def read_in_thread(stream: Iterator[object]) -> tuple[list[object], threading.Thread]:
    """Read `stream` in a thread, as gradio reads a page's event; the items it got."""
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.extend(stream), daemon=True)
    reader.start()
    return got, reader


def test_a_page_nothing_is_known_of_is_shown_everything():
    views = PageViews()
    assert views.shows(None, "a") and views.shows("page", "a")
    views.show("page", "a")
    assert views.shows("page", "a") and not views.shows("page", "b")
    views.leave("page")
    assert not views.shows("page", "a") and not views.shows("page", "b")
    views.forget("page")
    assert views.shows("page", "b")


def test_the_pages_remembered_are_bounded_oldest_first():
    views = PageViews(most_pages=2)
    for page in ("one", "two", "three"):
        views.show(page, "a")
    assert views.shows("one", "b"), "forgotten: unguarded"
    assert not views.shows("two", "b") and not views.shows("three", "b")


def test_the_reading_ends_once_the_page_leaves_and_the_stream_goes_on_unread():
    views, held = PageViews(check_s=0.01), Held("first", ["second", "third"])
    views.show("page", "a")
    got, reader = read_in_thread(views.while_shown("page", "a", held()))
    assert held.waiting.wait(GENEROUS_S)
    wait_for(lambda: got == ["first"], "the page got the first item")
    views.leave("page")
    assert views.wait_quiet("page", GENEROUS_S), "the reading ends while the stream waits"
    reader.join(GENEROUS_S)
    assert not reader.is_alive() and got == ["first"]
    held.go_on.set()
    assert held.finished.wait(GENEROUS_S), "the stream goes on to its end"
    assert not held.closed.is_set()
    assert got == ["first"], "nothing of it reaches the page that left"


def test_a_page_that_stays_gets_every_item():
    views, held = PageViews(check_s=0.01), Held("first", ["second"])
    views.show("page", "a")
    got, reader = read_in_thread(views.while_shown("page", "a", held()))
    assert held.waiting.wait(GENEROUS_S)
    held.go_on.set()
    reader.join(GENEROUS_S)
    assert got == ["first", "second"] and views.wait_quiet("page", 0)


def test_a_page_that_goes_away_closes_the_stream():
    views, held = PageViews(check_s=0.01), Held("first", ["second", "third"])
    reading = views.while_shown("page", "a", held())
    assert next(reading) == "first"
    reading.close()  # as gradio closes a page's event
    held.go_on.set()
    assert held.closed.wait(GENEROUS_S), "closed at its next item"
    assert not held.finished.is_set()


def test_a_turn_reopened_under_a_new_id_moves_the_page_with_it():
    views = PageViews(check_s=0.01)
    views.show("page", "old")
    items = [("chat", "old"), ("chat", "new"), ("chat", "new")]
    got = list(views.while_shown("page", "old", iter(items), lambda item: item[1]))
    assert got == items
    assert views.shows("page", "new") and not views.shows("page", "old")


def test_a_failure_of_the_stream_reaches_the_reader():
    def failing() -> Iterator[str]:
        yield "first"
        raise RuntimeError("the database is gone")

    views = PageViews(check_s=0.01)
    views.show("page", "a")
    reading = views.while_shown("page", "a", failing())
    assert next(reading) == "first"
    with pytest.raises(RuntimeError, match="the database is gone"):
        next(reading)
    assert views.wait_quiet("page", 0)


def test_without_a_page_the_stream_is_read_as_it_is():
    views = PageViews()
    views.leave("page")
    assert list(views.while_shown(None, "a", iter([1, 2]))) == [1, 2]
