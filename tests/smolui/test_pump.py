"""The event pump: batches, throttling, stop, errors, and the end-of-run callback."""

from __future__ import annotations

import threading
import time

from smolui.turns.pump import EventPump


def slow_events(count: int, pause: float):
    for index in range(count):
        time.sleep(pause)
        yield index


def test_all_events_arrive_in_order_and_on_done_runs():
    done = threading.Event()
    pump = EventPump(lambda: iter(range(50)), on_done=done.set).start()
    events = [e for batch in pump.batches(threading.Event()) for e in batch]
    assert events == list(range(50))
    assert pump.wait(2) and done.is_set() and pump.error is None


def test_fast_events_are_gathered_into_few_updates():
    pump = EventPump(lambda: slow_events(40, 0.005)).start()
    batches = list(pump.batches(threading.Event(), min_interval_s=0.05))
    assert sum(len(b) for b in batches) == 40
    assert len(batches) <= 8, f"{len(batches)} updates for ~0.2 s of events"


def test_stop_ends_the_iteration_while_the_agent_is_busy():
    stop = threading.Event()
    pump = EventPump(lambda: slow_events(2, 1.0)).start()
    threading.Timer(0.1, stop.set).start()
    started = time.monotonic()
    assert list(pump.batches(stop)) == []
    assert time.monotonic() - started < 0.5
    assert not pump.ended, "the agent's own thread keeps going until its step ends"
    assert pump.wait(5)


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
