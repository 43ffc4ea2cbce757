"""After Stop nothing more of the turn shows: what the stopped run sends once Stop is pressed
(its code killed, its step failed, the next step begun) never reaches the page. A page
reloaded mid-turn showed such a failed step and an extra "Step N · stopped" (issue 31)."""

from __future__ import annotations

import threading

from smolui.turns.pump import EventPump
from tests.waiting import GENEROUS_S


class WatchedStop(threading.Event):
    """A Stop event that tells when the page last looked at it and found it not set."""

    def __init__(self) -> None:
        super().__init__()
        self.looked = threading.Event()

    def is_set(self) -> bool:
        pressed = super().is_set()
        if not pressed:
            self.looked.set()
        return pressed


def test_what_the_stopped_run_sends_after_stop_is_not_handed_over():
    stop, handed = WatchedStop(), threading.Event()

    def stopped_run():
        yield "step 1 ran"
        assert handed.wait(GENEROUS_S), "the page took the first batch"
        # The page is waiting for the next event when Stop comes; the agent, interrupted,
        # then ends its step with an error and begins the next one.
        assert stop.looked.wait(GENEROUS_S), "the page looks for the next event"
        stop.set()
        yield "step 2 failed: interrupted"
        yield "step 3 began"

    pump = EventPump(stopped_run).start()
    batches = []
    for batch in pump.batches(stop, poll_s=GENEROUS_S):
        batches.append(batch)
        stop.looked.clear()
        handed.set()
    assert batches == [["step 1 ran"]]
    assert pump.wait(GENEROUS_S)
