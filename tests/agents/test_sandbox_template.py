"""Workers forked from the template process (issue 33), on the real sandbox.

A worker forked from the template runs code and keeps its variables like a spawned one,
with the same isolation; two workers (and a worker forked after the first one changed
things) share no variable, module, file or random state; the template dies with the app
and takes its workers with it; and without a template workers still start, as fresh
interpreters.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agents.errors import AgentExecutionError
from agents.executors.sandbox import SandboxExecutor, process
from agents.executors.sandbox.environment import package_paths
from agents.executors.sandbox.template import (
    TEMPLATES,
    Template,
    Templates,
    TemplateUnavailable,
)
from tests.waiting import wait_for

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

ROOT = Path(__file__).resolve().parents[2]

# Changes a conversation's code could make to what a forked worker started with.
MARK = """
import json, random, numpy
import numpy as np
numpy.mark = 'A'
json.dumps = lambda *a, **k: 'hijacked'
open('secret.txt', 'w').write('A only')
secret = 'A only'
(random.random(), float(np.random.rand()))
"""
LOOK = """
import json, random, os, numpy
import numpy as np
draws = (random.random(), float(np.random.rand()))
(draws, hasattr(numpy, 'mark'), json.dumps([1]), os.path.exists('secret.txt'),
 'secret' in dir())
"""


def _executor(**options) -> SandboxExecutor:
    return SandboxExecutor(additional_authorized_imports=["*"], **options)


def test_a_forked_worker_runs_code_keeps_variables_and_is_confined_as_before():
    with _executor(fork_from_template=False) as spawned:
        spawned.start()
        before = spawned.isolation
    with _executor() as executor:
        executor.start()
        report = executor.isolation
        assert report["forked_from_template"] is True
        assert executor("import numpy as np\ntotal = int(np.arange(10).sum())\ntotal").output == 45
        assert executor("total + 1").output == 46  # kept across steps
        if before["pid_namespace"]:
            assert executor("import os\nos.getpid()").output == 1  # first of its own
    assert before["forked_from_template"] is False
    for layer in ("level", "landlock", "seccomp", "namespaces", "own_uid", "pid_namespace"):
        assert report.get(layer) == before.get(layer), layer


def test_workers_share_no_variable_module_file_or_random_state():
    with _executor() as first, _executor() as second:
        for executor in (first, second):
            executor.start()  # both forked before the first one changes anything
        assert first.isolation["forked_from_template"] and second.isolation["forked_from_template"]
        first_draws = first(MARK).output
        with _executor() as later:  # forked after the change
            later.start()
            assert later.isolation["forked_from_template"]
            for other in (second, later):
                draws, marked, dumped, has_file, has_secret = other(LOOK).output
                assert (marked, dumped, has_file, has_secret) == (False, "[1]", False, False)
                assert draws[0] != first_draws[0] and draws[1] != first_draws[1]
            assert second(LOOK).output[0] != later(LOOK).output[0]
        spy = f"open({os.path.join(first.scratch, 'secret.txt')!r}).read()"
        with pytest.raises(AgentExecutionError, match="PermissionError|FileNotFoundError"):
            second(spy)


def test_a_worker_gets_none_of_the_templates_descriptors():
    if os.geteuid() != 0:
        pytest.skip("listing an undumpable worker's descriptors takes root")
    with _executor(fork_from_template=False) as spawned, _executor() as forked:
        spawned("1")
        forked("1")
        assert forked.isolation["forked_from_template"]
        kept = {name: _descriptors(e.worker_pid) for name, e in [("s", spawned), ("f", forked)]}
    # The same as a spawned worker's (stdio, its pipes, what confining left open), and
    # never the template's control socket.
    assert len(kept["f"]) == len(kept["s"]), kept
    assert not any(target.startswith("socket:") for target in kept["f"]), kept


def test_the_template_and_its_workers_die_with_the_app(tmp_path):
    script = tmp_path / "app.py"
    script.write_text(
        textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from agents.executors.sandbox import SandboxExecutor
        from agents.executors.sandbox.template import TEMPLATES
        executor = SandboxExecutor(additional_authorized_imports=["*"], timeout=60)
        executor("1")
        assert executor.isolation["forked_from_template"]
        print(executor.worker_pid, *TEMPLATES.pids(), flush=True)
        executor("while True:\\n    pass")
        """)
    )
    app = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(pid) for pid in app.stdout.readline().split()]
        assert len(pids) == 2, "the app did not report a forked worker and its template"
        assert all(_running(pid) for pid in pids)
        app.send_signal(signal.SIGKILL)
        app.wait()
        for pid in pids:
            wait_for(lambda pid=pid: not _running(pid), f"process {pid} outlived the app")
    finally:
        app.kill()
        app.wait()
        app.stdout.close()


def test_a_template_that_would_fork_with_a_thread_running_refuses(tmp_path):
    (tmp_path / "starts_a_thread.py").write_text(
        "import threading\nthreading.Thread(target=threading.Event().wait, daemon=True).start()\n"
    )
    with pytest.raises(TemplateUnavailable, match="threads"):
        Template(["starts_a_thread"], [str(tmp_path), *package_paths()])


def test_without_a_template_workers_start_as_interpreters(monkeypatch):
    from agents.executors.sandbox import template

    monkeypatch.setattr(template, "TEMPLATE_BOOTSTRAP", "raise SystemExit(3)")
    monkeypatch.setattr(process, "TEMPLATES", Templates())
    with _executor() as executor:
        assert executor("import numpy as np\nint(np.arange(4).sum())").output == 6
        assert executor.isolation["forked_from_template"] is False
    assert process.TEMPLATES.failed  # tried once, then not again for every worker


def test_a_template_that_fails_a_fork_is_given_up_for_interpreters(monkeypatch):
    templates = Templates()
    monkeypatch.setattr(process, "TEMPLATES", templates)
    with _executor() as first:
        first("1")
        assert first.isolation["forked_from_template"]
    (template,) = templates.started.values()
    held = template.control.dup()  # so the template itself sees no end and keeps running
    template.control.close()  # the next fork request fails on the host's side
    try:
        with _executor() as second:
            assert second("1 + 1").output == 2
            assert second.isolation["forked_from_template"] is False
        assert not templates.started and templates.failed  # not tried again for every worker
        assert not template.alive()  # stopped, not left behind
    finally:
        held.close()
        templates.close()


def test_a_template_that_died_is_replaced():
    with _executor() as executor:
        executor("x = 1")
        worker = executor.worker_pid
        (old,) = [pid for pid in TEMPLATES.pids() if _parent(worker) == pid]
        os.kill(old, signal.SIGKILL)
        wait_for(lambda: not _running(worker), "the worker outlived its template")
        assert executor("1 + 1").output == 2  # a new worker, from a new template
        assert executor.isolation["forked_from_template"] is True
        assert _parent(executor.worker_pid) != old


def _descriptors(pid: int) -> list[str]:
    """What a process's open descriptors point to (read as root from the host)."""
    folder = f"/proc/{pid}/fd"
    return sorted(os.readlink(f"{folder}/{fd}") for fd in os.listdir(folder))


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as file:
        return int(file.read().rsplit(")", 1)[1].split()[1])


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as file:
            return not any(line.startswith("State:\tZ") for line in file)
    except FileNotFoundError:
        return False


def test_a_worker_limited_to_less_room_than_the_template_takes_starts_as_an_interpreter():
    # The template's address space alone would use up most of a 256 MB limit.
    with _executor(memory_limit_mb=256) as executor:
        assert executor("kept = 1\nkept").output == 1
        assert executor.isolation["forked_from_template"] is False
