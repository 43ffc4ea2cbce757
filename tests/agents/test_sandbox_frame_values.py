"""Attacks on the host's decoding (issue 20, independent check): a frame the worker writes
itself, under the size cap, but made of millions of tiny JSON values, must be refused
before the host parses it (a 60 MB frame of `{},` cost the host 2.7 GB and a minute of CPU);
structured values, notes about refused images and PNG text chunks are capped by the host.
"""

from __future__ import annotations

import base64
import os
import resource
import struct
import sys
import textwrap
import time
import zlib

import pytest

from agents.errors import AgentExecutionError
from agents.executors.sandbox import SandboxExecutor
from agents.executors.sandbox.budget import BudgetLimits, StepBudget
from agents.executors.sandbox.channel import Channel, ProtocolViolation
from agents.executors.sandbox.results import result_to_output

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

# Writes one frame with this request's id straight into the worker's pipe to the host.
FORGE_MANY_VALUES = """
import gc, os
from agents.executors.sandbox.worker import Worker
me = [o for o in gc.get_objects() if isinstance(o, Worker)][0]
body = b'{"t":"result","ok":true,"logs":"","images":[],"id":%d,"output":[' % me.request_id
body += VALUE * 3_000_000 + b'0]}'
view = memoryview(len(body).to_bytes(4, 'big') + body)
while view:
    view = view[os.write(me.channel.write_fd, view):]
"""


def _peak_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


@pytest.mark.parametrize("value", [b"{},", b'"ab",'], ids=["empty objects", "short strings"])
def test_a_frame_of_millions_of_tiny_values_is_refused_before_parsing(value):
    with SandboxExecutor(additional_authorized_imports=["*"], timeout=20) as executor:
        executor("kept = 1")
        before = _peak_mb()
        with pytest.raises(AgentExecutionError) as caught:
            executor(f"VALUE = {value!r}\n" + textwrap.dedent(FORGE_MANY_VALUES))
        assert "values" in str(caught.value) and caught.value.state_lost
        assert _peak_mb() - before < 150  # parsed, it would have taken 200-400 MB more
        assert executor("1 + 1").output == 2  # a fresh worker serves the next step


def test_the_channel_counts_values_before_parsing():
    read_fd, write_fd = os.pipe()
    try:
        channel = Channel(read_fd, write_fd, max_values=10)
        channel.send({"t": "x", "v": list(range(5))})
        assert channel.receive()["v"] == [0, 1, 2, 3, 4]
        channel.send({"t": "x", "v": list(range(50))})
        with pytest.raises(ProtocolViolation, match="values"):
            channel.receive()
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_a_structured_value_over_the_output_cap_is_refused_by_the_host():
    # The worker cuts a long value to text, but the code can raise the worker's cap; the
    # host only cut text values, so a list of 12 MB came through (the cap is 1 M characters).
    with SandboxExecutor(additional_authorized_imports=["*"], max_output_chars=10_000) as executor:
        executor(
            "import gc\nfrom agents.executors.sandbox.worker import Worker\n"
            "[o for o in gc.get_objects() if isinstance(o, Worker)][0].max_output = 10**9"
        )
        with pytest.raises(AgentExecutionError, match="value was refused"):
            executor("list(range(100_000))")
        assert executor("list(range(100))").output == list(range(100))  # under the cap


def test_notes_about_refused_images_are_capped_by_the_host():
    # One note per refused image was added after the host cut the logs: a result listing
    # a million empty "images" gave the model 70 MB of logs.
    forge = FORGE_MANY_VALUES.split("body =")[0] + textwrap.dedent(
        """
        import json
        message = {'t': 'result', 'ok': True, 'output': 1, 'logs': '', 'id': me.request_id,
                   'images': [''] * 100_000}
        body = json.dumps(message).encode()
        os.write(me.channel.write_fd, len(body).to_bytes(4, 'big') + body)
        """
    )
    with SandboxExecutor(additional_authorized_imports=["*"], timeout=20) as executor:
        out = executor(forge)
        assert len(out.logs) < 6000 and "99960 more images not shown" in out.logs


def _png_with_text(chunks: int) -> bytes:
    """A 10x10 PNG carrying `chunks` zTXt chunks of 1 MB each once inflated (~1 KB each)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    text = zlib.compress(b"a" * ((1 << 20) - 100), 9)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 10, 10, 8, 0, 0, 0, 0))
        + b"".join(chunk(b"zTXt", b"k%d\x00\x00" % i + text) for i in range(chunks))
        + chunk(b"IDAT", zlib.compress((b"\x00" + b"\x80" * 10) * 10))
        + chunk(b"IEND", b"")
    )


def test_text_chunks_of_images_are_never_inflated_by_the_host():
    # Pillow inflates zTXt chunks up to 64 MB per image as it opens it: 20 images of 70 KB
    # (within the count and pixel budget) held 1.3 GB in the host.
    data = base64.b64encode(_png_with_text(60)).decode()
    result = {"t": "result", "ok": True, "output": None, "logs": "", "images": [data] * 20}
    started = time.process_time()
    out = result_to_output(result, StepBudget(BudgetLimits()))
    assert len(out.images) == 20 and out.images[0].size == (10, 10)
    assert out.images[0].getpixel((5, 5)) == 0x80
    assert "k0" not in out.images[0].info  # the text was dropped, never inflated
    assert time.process_time() - started < 2
