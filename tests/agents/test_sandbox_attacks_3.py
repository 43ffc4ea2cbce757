"""Attacks on the hardened sandbox from an independent run (issue 20), on the real worker:
threads started faster than the host counts them, code left running while the host is
busy with something else (a tool, a checkpoint), disk held by deleted files, what the
host parses before it can refuse it (frames, PNG chunks), and text no UTF-8 encoder takes.

Each test fails without the fix it names; the executor allows every import (`"*"`).
"""

from __future__ import annotations

import base64
import os
import struct
import sys
import textwrap
import threading
import time
import zlib

import pytest

from agents.errors import AgentExecutionError
from agents.executors.sandbox import SandboxExecutor
from agents.executors.sandbox.budget import MAX_CHUNKS, BudgetLimits, StepBudget
from agents.executors.sandbox.channel import Channel, ProtocolViolation, has_lone_surrogate
from agents.executors.sandbox.cleanup import folder_usage
from agents.executors.sandbox.results import result_to_output
from tests.agents.worker_state import stopped
from tests.waiting import wait_for

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

# Starts threads from C as fast as pthread_create goes (small stacks, so the memory limit
# is not what stops them): thousands in the quarter second between two host checks.
THREAD_BOMB = """
import ctypes
libc = ctypes.CDLL(None)
attr = ctypes.create_string_buffer(128)  # a pthread_attr_t (56 bytes here)
libc.pthread_attr_init(attr)
libc.pthread_attr_setstacksize(attr, ctypes.c_size_t(65536))
pause = ctypes.cast(libc.pause, ctypes.c_void_p)
started = 0
while started < 1000 and libc.pthread_create(
    ctypes.byref(ctypes.c_ulong()), attr, pause, None
) == 0:
    started += 1
started
"""

# A background thread that keeps creating files, one per millisecond.
FILLER = """
import itertools, os, threading, time
def fill():
    for i in itertools.count():
        open(f"f{i}", "w").close()
        time.sleep(0.001)
threading.Thread(target=fill, daemon=True).start()
while not os.path.exists("f0"):
    time.sleep(0.005)
"""

# An import hook whose class says where it comes from only once `released()` is true: the
# worker asks at each checkpoint (see `marks`), so the code gets to run meanwhile.
HELD_HOOK = """
import sys, time
class Held(type):
    @property
    def __module__(cls):
        deadline = time.monotonic() + 120  # never for ever, whatever the test does
        while not released() and time.monotonic() < deadline:
            time.sleep(0.01)
        return "elsewhere"
class Hook(metaclass=Held):
    def find_spec(self, *args):
        return None
sys.meta_path.append(Hook())
"""


def make(timeout: float = 20, **options) -> SandboxExecutor:
    executor = SandboxExecutor(additional_authorized_imports=["*"], timeout=timeout, **options)
    executor.start()  # reading `isolation` starts nothing
    if not executor.isolation["seccomp"] or not executor.isolation["landlock"]:
        executor.close()
        pytest.skip(f"kernel layers unavailable here: {executor.isolation['notes']}")
    return executor


def entries(executor: SandboxExecutor) -> int:
    return folder_usage(executor.scratch, 10**6)[1]


def test_the_kernel_refuses_threads_past_the_limit_in_each_worker():
    # Fix: RLIMIT_NPROC in the worker's own user namespace (`confine.limit_threads`).
    first, second = make(max_threads=16), make(max_threads=16)
    try:
        if not first.isolation["namespaces"]:
            pytest.skip(f"no user namespace here: {first.isolation['notes']}")
        assert first(THREAD_BOMB).output == 15  # the main thread is the 16th
        # Counted per worker: another worker of the same uid starts its own 15.
        assert second(THREAD_BOMB).output == 15
        assert first("'still serving'").output == "still serving"
    finally:
        first.close()
        second.close()


def test_the_worker_is_frozen_while_a_tool_runs():
    # Fix: `Execution._serve_tool_call` pauses the worker: nothing checks its disk or
    # threads while a tool runs, and a tool may run for minutes.
    with make() as executor:

        def frozen_tool():
            # SIGSTOP lands asynchronously: a system call in flight still finishes.
            wait_for(lambda: stopped(executor.worker_pid), "the worker stops while a tool runs")
            before = entries(executor)
            assert stopped(executor.worker_pid)
            return [before, entries(executor)]

        executor.send_tools({"frozen_tool": frozen_tool})
        before, after = executor(FILLER + "frozen_tool()").output
        assert before > 0 and after == before  # the filler thread made nothing meanwhile
        assert executor("len(__import__('os').listdir('.')) > 0").output is True


def test_limits_are_checked_while_the_worker_answers_a_checkpoint():
    # Fix: `WorkerSlot.request` runs the limit checks while it waits. Here the code holds
    # the checkpoint open (an import hook whose class runs code when the worker looks at
    # it) while its thread fills the folder far past the quota. Only the quota can end
    # the checkpoint: the hook waits for a file the test writes only if it did not, and
    # the request's timeout is past the test's wait.
    with make(timeout=240, max_files=200) as executor:
        executor(FILLER + "released = lambda: os.path.exists('release')\n" + HELD_HOOK)
        checkpoint = threading.Thread(target=executor.checkpoint)
        checkpoint.start()
        try:
            wait_for(lambda: not checkpoint.is_alive(), "the checkpoint ended past the quota")
        finally:
            if checkpoint.is_alive():
                open(os.path.join(executor.scratch, "release"), "w").close()  # noqa: SIM115
            checkpoint.join()
        assert not executor.running  # replaced, its files deleted
        assert entries(executor) <= 200
        assert "were lost" in executor("1").logs  # and the model is told


@pytest.mark.skipif(os.geteuid() != 0, reason="reading a worker's /proc takes root")
def test_deleted_files_the_worker_still_holds_count_towards_the_quota():
    # Fix: `held.deleted_files`, added to the quota walk's count. Deleted while open or
    # mapped, a file keeps its blocks and no folder walk sees it; 256 descriptors of
    # 64 MB files held 16 GB, across turns.
    with make(disk_quota_mb=20) as executor:
        code = """
            import mmap, os
            held = []
            for n in range(4):
                with open(f"h{n}", "wb+") as file:
                    file.write(b"x" * (12 << 20))
                    file.flush()
                    held.append(mmap.mmap(file.fileno(), 4096) if n % 2 else os.dup(file.fileno()))
                os.unlink(f"h{n}")
            len(held)
            """
        with pytest.raises(AgentExecutionError, match="filled the scratch folder"):
            executor(textwrap.dedent(code))
        assert executor("'fresh'").output == "fresh"


def test_text_no_utf8_encoder_takes_never_reaches_the_host():
    # Fix: `Channel` never writes a lone surrogate and refuses a frame holding one.
    # Before, a file name read with surrogateescape killed the worker when printed, and a
    # frame the code wrote itself put lone surrogates into the host's logs and values,
    # where every later model request and save of the conversation would fail on them.
    with make() as executor:
        executor.send_tools({"echo": lambda text: text + "\udcfe"})
        name = "b'report-\\xff.csv'.decode('utf-8', 'surrogateescape')"
        result = executor(f"kept = 1\nprint({name})\necho({name})")
        assert result.logs == "report-?.csv\n" and result.output == "report-?.csv?"
        assert executor("kept").output == 1
        code = r"""
            import gc, os, time
            from agents.executors.sandbox.worker import Worker
            worker = next(o for o in gc.get_objects() if isinstance(o, Worker))
            body = ('{"t":"result","id":%d,"ok":true,"output":"\\ud83d\\ude00 \\ud800",'
                    '"logs":"","is_final":false,"images":[]}' % worker.request_id).encode()
            os.write(worker.channel.write_fd, len(body).to_bytes(4, "big") + body)
            time.sleep(0.2)
            """
        with pytest.raises(AgentExecutionError, match="lone UTF-16 surrogate") as refused:
            executor(textwrap.dedent(code))
        assert refused.value.state_lost
        assert executor("'fresh'").output == "fresh"


def test_the_bytes_a_step_sends_the_host_are_capped():
    # Fix: `StepBudget.frame`, counted for every frame in `Execution.run`. The host parses
    # a frame before it knows it is refused (an oversized tool call, a stale frame): 60 MB
    # frames sent back to back cost it 15 s of CPU in a 30 s step.
    code = """
        import gc, os
        from agents.executors.sandbox.worker import Worker
        worker = next(o for o in gc.get_objects() if isinstance(o, Worker))
        body = b'{"t":"call","id":%d,"name":"x","pad":"%s"}' % (worker.request_id, b"y" * (10 << 20))
        os.set_blocking(worker.channel.write_fd, True)
        for _ in range(30):
            os.write(worker.channel.write_fd, len(body).to_bytes(4, "big") + body)
            worker.channel.receive()  # "Refused by the sandbox: tool arguments of ..."
        "all sent"
        """
    with make() as executor:
        with pytest.raises(AgentExecutionError, match="more than 256 MB of messages"):
            executor(textwrap.dedent(code))
        assert executor("'fresh'").output == "fresh"


def test_stale_frames_sent_during_a_checkpoint_are_capped():
    # Fix: `WorkerSlot.request` counts the bytes of the stale frames it drops (each one
    # parsed first); before, a checkpoint made slow by the code parsed all it was sent.
    # The flood starts when the checkpoint looks at the hook (not during the step), and
    # the hook holds the checkpoint open until the flood is sent.
    code = (
        textwrap.dedent(
            """
        import gc, os, threading
        from agents.executors.sandbox.worker import Worker
        worker = next(o for o in gc.get_objects() if isinstance(o, Worker))
        body = b'{"t":"ok","id":-1,"pad":"%s"}' % (b"y" * (10 << 20))
        looked, sent = threading.Event(), threading.Event()
        def flood():
            looked.wait()
            for _ in range(12):
                os.write(worker.channel.write_fd, len(body).to_bytes(4, "big") + body)
            sent.set()
        threading.Thread(target=flood, daemon=True).start()
        def released():
            looked.set()
            return sent.is_set()
        """
        )
        + HELD_HOOK
    )
    with make() as executor:
        executor(code)
        executor.checkpoint()
        assert not executor.running
        assert "were lost" in executor("1").logs


def test_a_png_of_millions_of_tiny_chunks_is_refused_before_it_is_read():
    # Fix: `budget.pixel_chunks` stops at MAX_CHUNKS. 4 M empty chunks (45 MB) took the
    # host 4 s of CPU in Python, for a 1x1 image, every step.
    def chunk(kind: bytes, data: bytes = b"") -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
    pixels = chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND")
    fine = b"\x89PNG\r\n\x1a\n" + header + chunk(b"abCd") * 1000 + pixels
    bomb = b"\x89PNG\r\n\x1a\n" + header + chunk(b"abCd") * 500_000 + pixels
    images = [base64.b64encode(png).decode() for png in (fine, bomb)]
    result = {"t": "result", "ok": True, "output": None, "logs": "", "images": images}
    started = time.process_time()
    out = result_to_output(result, StepBudget(BudgetLimits()))
    assert time.process_time() - started < 0.2
    assert [image.size for image in out.images] == [(1, 1)]
    assert f"more than {MAX_CHUNKS:,} chunks" in out.logs


def test_the_channel_refuses_lone_surrogates_wherever_they_are():
    fine = b'{"t":"x","pair":"\\ud83d\\ude00","raw":"\xed\xa0\x80","text":"\\\\ud800"}'
    assert _parse(fine) == {
        "t": "x",
        "pair": "\U0001f600",  # a valid pair, joined by the parser
        "raw": "\ufffd" * 3,  # raw surrogate bytes: replaced as the bytes are decoded
        "text": "\\ud800",  # an escaped backslash, not a surrogate
    }
    for forged in (b'{"t":"x","a":[{"b":"\\ud800"}]}', b'{"t":"x","\\udfff":1}'):
        with pytest.raises(ProtocolViolation, match="lone UTF-16 surrogate"):
            _parse(forged)
    # Deeper than the encoder goes: looked for without recursion.
    deep: list = ["\udc80"]
    clean: list = ["\U0001f600"]
    for _ in range(5000):
        deep, clean = [deep], [clean]
    assert has_lone_surrogate({"t": "x", "v": deep})
    assert not has_lone_surrogate({"t": "x", "v": clean})


def _parse(body: bytes) -> dict:
    read_fd, write_fd = os.pipe()
    channel = Channel(read_fd, write_fd)
    try:
        os.write(write_fd, len(body).to_bytes(4, "big") + body)
        return channel.receive(time.monotonic() + 5)
    finally:
        channel.close()
