"""Attack on the host's watch (issue 20, independent check): code that leaves a background
thread running after its step ends. The host checks the disk quota, threads and the
deadline only while a step runs, so between steps (a conversation may sit idle for hours)
such a thread filled 1.5 GB of scratch in 12 s. The worker is now frozen between requests.
"""

from __future__ import annotations

import os
import sys
import time

import pytest

from agents.executors.sandbox import SandboxExecutor
from tests.agents.worker_state import stopped
from tests.waiting import wait_for

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

WRITER = """
import os, threading, time
def beat():
    with open('beat', 'ab', buffering=0) as file:
        while True:
            file.write(b'x' * 4096)
            time.sleep(0.005)
threading.Thread(target=beat, daemon=True).start()
while not os.path.exists('beat') or not os.path.getsize('beat'):  # it ran during its step
    time.sleep(0.005)
"""
# A step that ends once the writer has written past `size` bytes: it runs again in a step.
GROWN = "while os.path.getsize('beat') <= {size}:\n    time.sleep(0.005)\n'grown'"


def test_a_background_thread_does_nothing_between_steps():
    with SandboxExecutor(additional_authorized_imports=["*"]) as executor:
        executor(WRITER)
        beat = os.path.join(executor.scratch, "beat")
        # SIGSTOP lands asynchronously: a write in flight still ends.
        wait_for(lambda: stopped(executor.worker_pid), "the worker is frozen after its step")
        size = os.path.getsize(beat)
        assert size > 0  # it ran during its step
        assert stopped(executor.worker_pid) and os.path.getsize(beat) == size  # not after it
        # It runs again only while a (watched) step runs: this step ends once it wrote more.
        assert executor(GROWN.format(size=size)).output == "grown"
        assert executor("1 + 1").output == 2


# A POSIX timer that sends SIGCONT (with a handler, so the signal is not ignored) would
# wake the frozen worker 50 times a second; timer_create is refused.
WAKE_UP_TIMER = """
import ctypes, errno, signal
libc = ctypes.CDLL(None, use_errno=True)
class SigEvent(ctypes.Structure):
    _fields_ = [('value', ctypes.c_void_p), ('signo', ctypes.c_int), ('notify', ctypes.c_int),
                ('pad', ctypes.c_byte * 48)]
class TimerSpec(ctypes.Structure):
    _fields_ = [('interval', ctypes.c_long * 2), ('value', ctypes.c_long * 2)]
signal.signal(signal.SIGCONT, lambda *_: None)
timer = ctypes.c_void_p()
made = libc.timer_create(1, ctypes.byref(SigEvent(None, signal.SIGCONT, 0)), ctypes.byref(timer))
made_errno = ctypes.get_errno()
every = (ctypes.c_long * 2)(0, 20_000_000)
libc.timer_settime(timer, 0, ctypes.byref(TimerSpec(every, every)), None)
"""


def test_a_timer_cannot_wake_the_frozen_worker():
    with SandboxExecutor(additional_authorized_imports=["*"]) as executor:
        executor.start()  # reading `isolation` starts nothing
        if not executor.isolation["seccomp"]:
            pytest.skip(f"no seccomp here: {executor.isolation['notes']}")
        executor(WAKE_UP_TIMER + WRITER)
        assert executor("made, made_errno == errno.EPERM").output == (-1, True)
        beat = os.path.join(executor.scratch, "beat")
        wait_for(lambda: stopped(executor.worker_pid), "the worker is frozen after its step")
        size = os.path.getsize(beat)
        # What must not happen has no event to wait for: a timer firing 50 times a second
        # would have woken the worker many times in this window. The outcome does not
        # depend on how busy the machine is; only the chance to catch a wake-up does.
        time.sleep(1.0)
        assert stopped(executor.worker_pid) and os.path.getsize(beat) == size
