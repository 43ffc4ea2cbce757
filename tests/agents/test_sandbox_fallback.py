"""When a sandbox worker may start without namespaces (issue 20), on the real worker.

Only a kernel that refuses the namespaces makes an executor's workers start without them,
and then the downgrade is logged, kept in the isolation report and shown by the side
panel, or refused under `require_isolation`. A start that fails for another reason (a
timeout on a loaded machine, a worker that dies for lack of file descriptors) is retried
with the namespaces, then is a clear error.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest

from agents.errors import AgentConfigError
from agents.executors.sandbox import SandboxExecutor
from agents.executors.sandbox.namespaces import ID_MAPS_FAILED
from agents.executors.sandbox.process import namespaces_refusal
from agents.executors.sandbox.spawn import PROJECT_ROOT, SPARES
from smolui.render.panel import describe_isolation

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

SLOT_LOG = "agents.executors.sandbox.slot"


def _namespaces_here() -> dict:
    executor = SandboxExecutor(spare_worker=False)
    try:
        executor.start()  # reading `isolation` starts nothing
        report = executor.isolation
    finally:
        executor.close()
    if not report.get("namespaces"):
        pytest.skip(f"namespaces unavailable here: {report['notes']}")
    return report


def test_a_start_that_times_out_once_keeps_the_namespaces(caplog):
    expected = _namespaces_here()
    SPARES.refill()
    spare = SPARES.spare
    assert spare is not None
    os.kill(spare.proc.pid, signal.SIGSTOP)  # the next worker will not answer in time
    executor = SandboxExecutor(fork_from_template=False)  # takes that spare first
    executor._slot.start_timeout = 3.0
    try:
        with caplog.at_level(logging.WARNING, logger=SLOT_LOG):
            executor.start()
            report = executor.isolation
        assert spare.proc.poll() is not None  # the stuck worker was killed, not kept
        assert executor("final_answer(6 * 7)").output == 42
    finally:
        executor.close()
    assert any("did not start" in r.getMessage() for r in caplog.records), caplog.text
    assert not any("without namespaces" in r.getMessage() for r in caplog.records)
    assert report["namespaces"] is True
    assert report.get("threads_limit") is True
    assert report.get("own_uid") == expected.get("own_uid")  # its own uid when the app is root
    assert "downgraded" not in report and report["level"] == "full"
    assert executor._setup["namespaces"] is True  # later workers get them too


def test_a_start_failure_that_is_not_the_kernels_refusal_is_retried_then_an_error(caplog):
    _namespaces_here()
    # No descriptor past stdin, stdout and stderr: the worker dies opening its id maps
    # (EMFILE), which says nothing about namespaces; without them it would start with
    # neither Landlock nor seccomp.
    executor = SandboxExecutor(max_open_files=3, spare_worker=False)
    try:
        with (
            caplog.at_level(logging.WARNING, logger=SLOT_LOG),
            pytest.raises(AgentConfigError, match="could not start \\(3 tries"),
        ):
            executor.start()
    finally:
        executor.close()
    tries = [r for r in caplog.records if "trying again as it was" in r.getMessage()]
    assert len(tries) == 2
    assert not any("without namespaces" in r.getMessage() for r in caplog.records)
    assert executor._setup["namespaces"] is True


def test_only_the_kernels_refusal_of_the_id_maps_counts_as_no_namespaces():
    def worker_stderr(code: int) -> str:
        error = OSError(code, os.strerror(code), "/proc/self/uid_map")
        return f"Traceback ignored {ID_MAPS_FAILED}: {error}"

    for code in (errno.EPERM, errno.EACCES):
        assert "refused" in namespaces_refusal(worker_stderr(code))
    for code in (errno.EMFILE, errno.ENOMEM, errno.EINTR):
        assert namespaces_refusal(worker_stderr(code)) == ""
    assert namespaces_refusal("") == ""
    assert namespaces_refusal("it stopped answering") == ""


# Run as the app inside a user namespace that maps no id: the kernel refuses its workers
# new user namespaces (EPERM), as a container's seccomp profile or a sysctl would.
_APP = textwrap.dedent(
    """
    import json, logging, sys
    from agents.errors import AgentConfigError
    from agents.executors.sandbox import SandboxExecutor
    from smolui.render.panel import describe_isolation

    warnings = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: warnings.append(record.getMessage())
    logging.getLogger("agents.executors.sandbox").addHandler(handler)
    out = {}
    executor = SandboxExecutor(spare_worker=False)
    try:
        executor.start()
        out["report"] = executor.isolation
        out["panel"] = describe_isolation(out["report"], "sandbox")
        out["answer"] = executor("final_answer(6 * 7)").output
    finally:
        executor.close()
    out["warnings"] = warnings
    strict = SandboxExecutor(spare_worker=False, require_isolation=True)
    try:
        strict.start()
    except AgentConfigError as error:
        out["strict"] = str(error)
    finally:
        strict.close()
    print(json.dumps(out))
    """
)


def _run_app_without_user_namespaces() -> dict:
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-U", "true"]).returncode != 0:
        pytest.skip("cannot start an app in a user namespace of its own here")
    done = subprocess.run(
        [unshare, "-U", sys.executable, "-c", _APP],
        cwd=PROJECT_ROOT,
        env={**os.environ, "PYTHONPATH": PROJECT_ROOT},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_namespaces_the_kernel_refuses_are_a_logged_downgrade_in_the_report():
    _namespaces_here()
    out = _run_app_without_user_namespaces()
    report = out["report"]
    assert report["namespaces"] is False
    assert "Operation not permitted" in report["downgraded"]
    assert report["level"] == "partial (missing: namespaces)"
    assert report["landlock"] and report["seccomp"]  # the other layers stay
    assert out["answer"] == 42
    assert any(
        "without namespaces" in line and "Operation not permitted" in line
        for line in out["warnings"]
    ), out["warnings"]
    assert "missing: own user/IPC/network namespaces" in out["panel"]
    # The same kernel under require_isolation: refused, with a way out named.
    assert "lacks namespaces" in out["strict"] and "namespaces=False" in out["strict"]


def test_the_panel_names_no_downgrade_when_there_is_none():
    report = _namespaces_here()
    assert "downgraded" not in report
    assert "missing" not in describe_isolation(report, "sandbox")
