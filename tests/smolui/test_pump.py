"""The event pump: batches, throttling, stop, errors, and the end-of-run callback."""

from __future__ import annotations

import threading
import time

from smolui.turns.pump import EventPump
from tests.waiting import GENEROUS_S


def spread_events(count: int):
    """Events that arrive one by one, each after the pump thread gave way to others."""
    for index in range(count):
        time.sleep(0)  # let the consumer run between two events, as a model's tokens do
        yield index


def test_all_events_arrive_in_order_and_on_done_runs():
    done = threading.Event()
    pump = EventPump(lambda: iter(range(50)), on_done=done.set).start()
    events = [e for batch in pump.batches(threading.Event()) for e in batch]
    assert events == list(range(50))
    assert pump.wait(GENEROUS_S) and done.is_set() and pump.error is None


def test_fast_events_are_gathered_into_few_updates():
    # The interval outlasts the whole stream, however slow the machine: the first events go
    # out at once, every later one waits for the end and comes in one more update.
    pump = EventPump(lambda: spread_events(40)).start()
    batches = list(pump.batches(threading.Event(), min_interval_s=GENEROUS_S))
    assert [e for batch in batches for e in batch] == list(range(40))
    assert len(batches) <= 2, f"{len(batches)} updates within one interval"


def test_without_an_interval_each_arrival_is_its_own_update():
    # Each event waits until the one before it was handed over, so none can be gathered.
    handed: list[threading.Event] = [threading.Event() for _ in range(5)]

    def one_at_a_time():
        for index, seen in enumerate(handed):
            yield index
            assert seen.wait(GENEROUS_S), "the update was handed over"

    pump = EventPump(one_at_a_time).start()
    batches = []
    for batch in pump.batches(threading.Event()):
        batches.append(batch)
        handed[len(batches) - 1].set()
    assert batches == [[index] for index in range(5)]


def test_stop_ends_the_iteration_while_the_agent_is_busy():
    # The agent's stream is held open until the test lets it go: the iteration must end first.
    stop, reached, gate = threading.Event(), threading.Event(), threading.Event()

    def busy_agent():
        reached.set()
        gate.wait(GENEROUS_S)
        yield "late"

    pump = EventPump(busy_agent).start()
    handed: list = []
    page = threading.Thread(target=lambda: handed.extend(pump.batches(stop)), daemon=True)
    page.start()
    try:
        assert reached.wait(GENEROUS_S), "the agent started"
        stop.set()
        page.join(GENEROUS_S)
        assert not page.is_alive(), "Stop ends the iteration while the agent is busy"
        assert handed == []
        assert not pump.ended, "the agent's own thread keeps going until its step ends"
    finally:
        gate.set()
    assert pump.wait(GENEROUS_S)


def test_errors_are_handed_over():
    def broken():
        yield 1
        raise ValueError("boom")

    pump = EventPump(broken).start()
    assert [e for b in pump.batches(threading.Event()) for e in b] == [1]
    assert isinstance(pump.error, ValueError)


def test_the_stream_runs_in_the_callers_context():
    import contextvars

    conversation = contextvars.ContextVar("conversation", default="none")
    conversation.set("c-1")
    pump = EventPump(lambda: iter([conversation.get()])).start()
    assert [e for batch in pump.batches(threading.Event()) for e in batch] == ["c-1"]


def test_the_end_is_handed_over_after_on_done_has_run():
    # A page that sees a turn end may edit or retry at once: the conversation's claim
    # (released by on_done) must be free by then. on_done is held until the consumer has
    # either ended (the bug) or been held back for a moment (the end waits for on_done).
    gate, released = threading.Event(), threading.Event()
    seen_end: list[bool] = []

    def on_done():
        gate.wait(GENEROUS_S)
        released.set()

    pump = EventPump(lambda: iter(range(3)), on_done=on_done).start()

    def consume():
        for _ in pump.batches(threading.Event()):
            pass
        seen_end.append(released.is_set())

    consumer = threading.Thread(target=consume)
    consumer.start()
    consumer.join(1.0)  # without the wait it ends here, before on_done is let go
    gate.set()
    consumer.join(GENEROUS_S)
    assert seen_end == [True], "the stream's end was handed over before on_done ran"
