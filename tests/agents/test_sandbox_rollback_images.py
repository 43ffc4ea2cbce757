"""Attack on Retry (issue 20, independent check): the values a worker sends back for a
restart after Retry come from the code's interpreter, which it can patch. The host decoded
their images with no count or pixel budget (15 forged 6000x6000 images: 2.1 GB and 50 s in
the host, then re-sent to the new worker); now they are budgeted like a step's images. The
names and reasons it sends reached the model uncut (or raised when not a list).
"""

from __future__ import annotations

import sys

import pytest

from agents.executors.sandbox import SandboxExecutor

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

# Makes the worker's next rollback report a changed interpreter and send 25 images of
# 9 M pixels each (225 M pixels; the budget is 40 M) as the values to restore.
PATCH_ROLLBACK = """
import base64, io
from PIL import Image
import agents.executors.sandbox.worker as worker
buffer = io.BytesIO()
Image.new('L', (3000, 3000), 7).save(buffer, 'PNG')
png = base64.b64encode(buffer.getvalue()).decode()
worker.changes_since = lambda before, after: ['a thread']
worker.plain_values = lambda saved, png=png: (
    {f'i{k}': {'$t': 'image', 'v': png} for k in range(25)}, []
)
"""


def test_values_sent_back_for_retry_are_budgeted_like_a_steps_images():
    with SandboxExecutor(additional_authorized_imports=["*"]) as executor:
        executor("x = 1")
        executor.checkpoint()
        executor(PATCH_ROLLBACK)
        executor.rollback()
        after = executor("sorted(name for name in globals() if name.startswith('i'))")
        assert after.output == []  # nothing over the budget was decoded or carried over
        assert "i24" in after.logs and "Retry" in after.logs  # the model is told


def test_what_a_worker_says_was_lost_on_retry_is_cut_before_the_model_sees_it():
    with SandboxExecutor(additional_authorized_imports=["*"]) as executor:
        executor("x = 1")
        executor.checkpoint()
        executor(
            "import agents.executors.sandbox.worker as worker\n"
            "worker.changes_since = lambda before, after: ['c' * 1_000_000, {'not': 'text'}]\n"
            "worker.plain_values = lambda saved: ({'x': 1}, ['n' * 1_000_000])"
        )
        executor.rollback()
        after = executor("x")
        assert after.output == 1 and "Retry" in after.logs
        assert len(after.logs) < 1000
