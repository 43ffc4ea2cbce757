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

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

WRITER = """
import threading, time
def beat():
    with open('beat', 'ab', buffering=0) as file:
        while True:
            file.write(b'x' * 4096)
            time.sleep(0.005)
threading.Thread(target=beat, daemon=True).start()
time.sleep(0.2)
"""


def test_a_background_thread_does_nothing_between_steps():
    with SandboxExecutor(additional_authorized_imports=["*"]) as executor:
        executor(WRITER)
        beat = os.path.join(executor.scratch, "beat")
        time.sleep(0.1)  # SIGSTOP lands asynchronously: a write in flight still ends
        size = os.path.getsize(beat)
        assert size > 0  # it ran during its step
        time.sleep(1.0)
        assert os.path.getsize(beat) == size  # and not at all after it
        executor("time.sleep(0.2)")  # it runs again only while a (watched) step runs
        assert os.path.getsize(beat) > size
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
        time.sleep(0.1)
        size = os.path.getsize(beat)
        time.sleep(1.0)
        assert os.path.getsize(beat) == size
