"""`isinstance(x, CodeExecutor)` starts no sandbox worker (issue 20).

`CodeExecutor` is a runtime-checkable protocol: on Python 3.11 an `isinstance` check reads
every member, `isolation` included, so that property must start nothing.
"""

from __future__ import annotations

import sys

import pytest

from agents.executors.base import CodeExecutor
from agents.executors.sandbox import SandboxExecutor
from smolui.render.panel import describe_isolation

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")


def test_an_isinstance_check_starts_no_worker():
    executor = SandboxExecutor(spare_worker=False)
    try:
        assert isinstance(executor, CodeExecutor)
        assert executor._slot.worker is None and not executor.running
        report = executor.isolation  # reading the report starts nothing either
        assert executor._slot.worker is None and executor.worker_pid is None
        assert report["started"] is False and "not started" in report["level"]
        assert "starts with the first code" in describe_isolation(report, "sandbox")
        executor.start()
        started = executor.isolation
        assert executor.running and "started" not in started
        assert started["process"] is True and "landlock" in started
        assert isinstance(executor, CodeExecutor) and executor.worker_pid is not None
    finally:
        executor.close()
