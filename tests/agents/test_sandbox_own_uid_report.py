"""A root app's worker that was asked for a uid of its own and did not get it (issue 20).

On the real worker: with a few file descriptors (found here: five to seven) the worker starts (namespaces, Landlock,
seccomp) but cannot make the id-mapped mounts of its files (EMFILE), so it keeps the
app's uid. The isolation report must say so in its "level", the warning must be logged
once, the side panel must name it, and `require_isolation` must refuse such a worker.
"""

from __future__ import annotations

import logging
import os
import sys

import pytest

from agents.errors import AgentConfigError
from agents.executors.sandbox import SandboxExecutor
from smolui.render.panel import describe_isolation

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() != 0,
    reason="only a root app's workers are asked for a uid of their own",
)

SLOT_LOG = "agents.executors.sandbox.slot"


def _report(**options) -> dict:
    executor = SandboxExecutor(spare_worker=False, **options)
    try:
        executor.start()
        return executor.isolation
    finally:
        executor.close()


@pytest.fixture(scope="module")
def few_files() -> int:
    """The fewest descriptors a worker starts confined with (namespaces, Landlock, seccomp)
    but too few for the id-mapped mounts; it varies by one or two with the interpreter."""
    control = _report()
    if not control.get("own_uid") or control["level"] != "full":
        pytest.skip(f"no full isolation with an own uid here: {control['notes']}")
    for count in range(5, 12):
        try:
            report = _report(max_open_files=count)
        except AgentConfigError:  # too few to start at all
            continue
        if report.get("own_uid"):
            break
        if report.get("seccomp") and report.get("landlock") and report.get("namespaces"):
            return count
    pytest.skip("no descriptor limit singles out the own uid here")


def test_a_missing_own_uid_is_missing_in_the_report_the_log_and_the_panel(few_files, caplog):
    executor = SandboxExecutor(spare_worker=False, max_open_files=few_files)
    try:
        with caplog.at_level(logging.WARNING, logger=SLOT_LOG):
            executor.start()
            report = executor.isolation
            assert executor("final_answer(6 * 7)").output == 42  # it runs, with its app's uid
            executor.reset()
            executor.start()  # a second worker: the warning is not repeated
    finally:
        executor.close()
    assert "EMFILE" in report["notes"]["own_uid"] or "Too many" in report["notes"]["own_uid"]
    assert report["level"] == "partial (missing: own_uid)"
    assert report["missing"] == ["own_uid"]
    warned = [r for r in caplog.records if "own_uid" in r.getMessage()]
    assert len(warned) == 1 and warned[0].levelno == logging.WARNING, caplog.text
    panel = describe_isolation(report, "sandbox")
    assert panel.endswith("(missing: own uid)"), panel


def test_require_isolation_refuses_a_worker_without_its_own_uid(few_files):
    strict = SandboxExecutor(spare_worker=False, max_open_files=few_files, require_isolation=True)
    try:
        with pytest.raises(AgentConfigError, match="lacks own_uid"):
            strict.start()
        assert not strict.running
    finally:
        strict.close()


def test_an_app_that_asked_for_no_namespaces_misses_no_own_uid(few_files):
    report = _report(max_open_files=few_files, namespaces=False)
    assert "own_uid" not in report["missing"]
