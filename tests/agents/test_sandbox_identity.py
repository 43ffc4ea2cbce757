"""The sandbox worker under an id of its own, in a PID namespace of its own (issue 20), on the
real worker, plus the planning of its view of the files (no root needed for that part).

These layers need the app to be root (CAP_SETUID, CAP_SYS_ADMIN); elsewhere the worker
tests skip and the isolation report must say why.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from agents.errors import AgentExecutionError
from agents.executors.sandbox import SandboxExecutor, identity, view
from tests.agents.test_sandbox_hardening import run

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")


@pytest.fixture(scope="module")
def private_folder(tmp_path_factory):
    """Like an upload folder: private to the app (0700), its files 0600."""
    folder = tmp_path_factory.mktemp("private")
    folder.chmod(0o700)
    (folder / "doc.txt").write_text("uploaded")
    (folder / "doc.txt").chmod(0o600)
    return folder


@pytest.fixture(scope="module")
def open_folder(tmp_path_factory):
    """A world-readable granted folder holding one file only its owner may read."""
    folder = tmp_path_factory.mktemp("open")
    folder.chmod(0o755)
    (folder / "public.txt").write_text("public")
    (folder / "public.txt").chmod(0o644)
    (folder / "owner_only.txt").write_text("owner only")
    (folder / "owner_only.txt").chmod(0o600)
    return folder


@pytest.fixture(scope="module")
def sandbox(private_folder, open_folder):
    executor = SandboxExecutor(
        additional_authorized_imports=["*"],
        timeout=20,
        read_only_paths=[str(private_folder), str(open_folder)],
    )
    executor.start()  # reading `isolation` starts nothing
    report = executor.isolation
    if not report.get("own_uid"):
        executor.close()
        pytest.skip(f"no uid of its own here: {report['notes'].get('own_uid')}")
    yield executor
    executor.close()


def test_the_worker_runs_under_an_unprivileged_id_of_its_own(sandbox):
    uid, euid, gid, groups = run(
        sandbox, "import os\n(os.getuid(), os.geteuid(), os.getgid(), os.getgroups())"
    )
    assert uid == euid == identity.DEFAULT_WORKER_ID and gid == identity.DEFAULT_WORKER_ID
    assert uid not in (0, os.getuid()) and groups == []
    # Its files are its own in its view; on disk they stay the app's, so the host can
    # always measure and remove them.
    assert run(sandbox, "open('mine.txt', 'w').write('x')\nos.stat('mine.txt').st_uid") == uid
    assert Path(sandbox.scratch, "mine.txt").stat().st_uid == os.getuid()


def test_no_file_can_be_made_setuid(sandbox):
    # On disk the scratch folder's files are the app's: a setuid file would be the app's
    # program. Creating one is refused, and chmod never changes a mode.
    made = run(sandbox, "os.close(os.open('suid', os.O_CREAT | os.O_WRONLY, 0o4755))")
    assert isinstance(made, AgentExecutionError) and "PermissionError" in made.message
    run(sandbox, "os.close(os.open('plain', os.O_CREAT | os.O_WRONLY, 0o755))")
    run(sandbox, "os.chmod('plain', 0o6755)")
    assert Path(sandbox.scratch, "plain").stat().st_mode & 0o6000 == 0
    assert not Path(sandbox.scratch, "suid").exists()


def test_root_only_files_stay_unreadable_even_where_landlock_allows(sandbox, open_folder):
    # The folder is granted (Landlock allows it) and world-readable, so it is seen as any
    # other user sees it: the file only its owner may read stays closed to the worker.
    assert run(sandbox, f"open({str(open_folder / 'public.txt')!r}).read()") == "public"
    refused = run(sandbox, f"open({str(open_folder / 'owner_only.txt')!r}).read()")
    assert isinstance(refused, AgentExecutionError) and "Permission denied" in refused.message
    outside = run(sandbox, "open('/etc/shadow').read()")
    assert isinstance(outside, AgentExecutionError) and "PermissionError" in outside.message


def test_a_folder_private_to_the_app_is_readable_but_not_writable(sandbox, private_folder):
    assert run(sandbox, f"open({str(private_folder / 'doc.txt')!r}).read()") == "uploaded"
    late = private_folder / "late.txt"  # arrives after the worker started, like an upload
    late.write_text("later")
    late.chmod(0o600)
    assert run(sandbox, f"open({str(late)!r}).read()") == "later"
    write = run(sandbox, f"open({str(private_folder / 'new.txt')!r}, 'w')")
    assert isinstance(write, AgentExecutionError) and not (private_folder / "new.txt").exists()


def test_the_rest_of_a_private_home_is_out_of_sight(sandbox):
    home = os.path.expanduser("~")
    if os.stat(home).st_mode & 0o001 or not sys.prefix.startswith(home + "/"):
        pytest.skip("the Python installation is not inside a private home folder here")
    others = [n for n in os.listdir(home) if not sys.prefix.startswith(f"{home}/{n}/")]
    if not others:
        pytest.skip("nothing else in the home folder")
    # Not merely refused (Landlock would say so): the folder is an empty cover there.
    hidden = run(sandbox, f"open({os.path.join(home, others[0])!r}).read()")
    assert isinstance(hidden, AgentExecutionError) and "FileNotFoundError" in hidden.message
    assert run(sandbox, f"os.listdir({home!r})") != sorted(os.listdir(home))


def test_no_other_process_is_visible(sandbox):
    host = os.getpid()
    assert sandbox.isolation["pid_namespace"] is True
    assert run(sandbox, "import os\n(os.getpid(), os.getppid())") == (1, 0)
    for probe in ("os.getpgid", "os.getsid", "os.sched_getaffinity"):
        seen = run(sandbox, f"{probe}({host})")
        assert isinstance(seen, AgentExecutionError) and "ProcessLookupError" in seen.message
    killed = run(sandbox, f"os.kill({host}, 9)")
    assert isinstance(killed, AgentExecutionError)
    # Its /proc (were Landlock not to refuse it) lists itself only, as the host can see.
    listed = os.listdir(f"/proc/{sandbox.worker_pid}/root/proc")
    assert [name for name in listed if name.isdigit()] == ["1"]
    with SandboxExecutor(spare_worker=False) as other:  # another conversation's worker
        other("1")
        seen = run(sandbox, f"os.getpriority(os.PRIO_PROCESS, {other.worker_pid})")
        assert isinstance(seen, AgentExecutionError) and "ProcessLookupError" in seen.message
        assert other("2").output == 2


def test_plan_hides_closed_folders_and_maps_private_grants():
    with tempfile.TemporaryDirectory() as base:  # in /tmp: every folder above is passable
        root = Path(base)
        root.chmod(0o755)
        closed = root / "home"  # like /root: 0700, the Python installation inside
        python = closed / "python"
        (python / "lib").mkdir(parents=True)
        closed.chmod(0o700)
        upload = root / "upload"
        upload.mkdir(mode=0o700)
        system = root / "system"
        system.mkdir(mode=0o755)
        worker = identity.DEFAULT_WORKER_ID
        grants = [python, python / "lib", upload, system, root / "gone"]
        seen = view.plan([str(p) for p in grants], [], worker, worker)
    assert seen.covers == [str(closed)]
    # The installation comes back as it is, and the folder inside it with it; the private
    # upload folder comes back read-only through the id map; the open one is left alone.
    assert seen.grafts == {str(python): (False, False), str(upload): (True, True)}
    assert seen.left_out == [str(root / "gone")]


def test_an_app_that_is_not_root_keeps_its_uid(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(identity.IdentityUnavailable, match="not root"):
        identity.become(identity.DEFAULT_WORKER_ID, [], [])


def test_without_the_right_workers_start_in_the_app_pid_namespace():
    # An app without CAP_SYS_ADMIN: the spawn still works, as an ordinary child.
    code = textwrap.dedent(f"""
        import subprocess, sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from agents.executors.sandbox.confine import drop_capabilities
        from agents.executors.sandbox.pidns import popen_in_new_namespace
        drop_capabilities()
        for _ in range(2):
            child = popen_in_new_namespace(
                [sys.executable, "-c", "import os; print(os.getpid())"], stdout=subprocess.PIPE
            )
            print(child.pid == int(child.communicate()[0]))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]  # seen by the same pid inside and out
