"""Attacks on the hardened sandbox (issue 20), on the real worker: the seccomp allow-list,
lifetime and control, budgets the host enforces itself, and clean-up that always works.

Each attack must fail with a clear step error (or be made harmless), the host must stay
healthy, and the next step must work. The executor allows every import (`"*"`).
"""

from __future__ import annotations

import base64
import os
import platform
import shutil
import struct
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import zlib
from pathlib import Path

import pytest

from agents.errors import AgentExecutionError
from agents.executors.sandbox import SandboxExecutor, seccomp
from agents.executors.sandbox import execution as sandbox_execution
from agents.executors.sandbox.budget import BudgetLimits, StepBudget
from agents.executors.sandbox.cleanup import FolderMoved, folder_usage, remove_tree, walk
from agents.executors.sandbox.results import result_to_output
from tests.agents.moved_clock import MovedClock
from tests.waiting import wait_for

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")
X86_64 = platform.machine() == "x86_64"


@pytest.fixture(scope="module")
def shared_folder(tmp_path_factory):
    """A folder of host files the code may read (like an upload folder)."""
    folder = tmp_path_factory.mktemp("shared")
    (folder / "data.txt").write_text("host data")
    os.chmod(folder / "data.txt", 0o640)
    return folder


@pytest.fixture(scope="module")
def sandbox(shared_folder):
    executor = SandboxExecutor(
        additional_authorized_imports=["*"], timeout=20, read_only_paths=[str(shared_folder)]
    )
    executor.start()  # reading `isolation` starts nothing
    if not executor.isolation["seccomp"] or not executor.isolation["landlock"]:
        executor.close()
        pytest.skip(f"kernel layers unavailable here: {executor.isolation['notes']}")
    yield executor
    executor.close()


def run(executor: SandboxExecutor, code: str) -> object:
    """The step's output, or the AgentExecutionError it raised."""
    try:
        return executor(textwrap.dedent(code)).output
    except AgentExecutionError as error:
        return error


def syscalls(executor: SandboxExecutor, calls: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Run raw libc/syscall expressions in the worker; (result, errno) of each."""
    lines = ["import ctypes, os", "libc = ctypes.CDLL(None, use_errno=True)", "out = {}"]
    for name, expression in calls.items():
        lines.append(f"ctypes.set_errno(0)\nout[{name!r}] = ({expression}, ctypes.get_errno())")
    result = run(executor, "\n".join(lines) + "\nout")
    assert isinstance(result, dict), result
    return result


# -- deny by default -------------------------------------------------------------------------


def test_file_metadata_of_host_files_cannot_change(sandbox, shared_folder):
    target = shared_folder / "data.txt"
    before = target.stat()
    result = run(
        sandbox,
        f"""
        import os
        path = {str(target)!r}
        outcomes = {{}}
        for name, attempt in [
            ("chmod", lambda: os.chmod(path, 0o4777)),
            ("fchmod", lambda: os.fchmod(os.open(path, os.O_RDONLY), 0o4777)),
            ("utime", lambda: os.utime(path, (0, 0))),
            ("chown", lambda: os.chown(path, 12345, 12345)),
            ("setxattr", lambda: os.setxattr(path, "user.x", b"1")),
        ]:
            try:
                attempt()
                outcomes[name] = "no error"
            except OSError as error:
                outcomes[name] = type(error).__name__
        outcomes
        """,
    )
    after = target.stat()
    assert (after.st_mode, after.st_uid, after.st_mtime_ns) == (
        before.st_mode,
        before.st_uid,
        before.st_mtime_ns,
    )
    assert result["chown"] == "PermissionError" and result["setxattr"] == "PermissionError"
    assert target.read_text() == "host data"


def test_copying_files_still_works_though_modes_never_change(sandbox):
    result = run(
        sandbox,
        """
        import os, shutil
        open('a.txt', 'w').write('copy me')
        os.chmod('a.txt', 0o4755)  # ignored: answers success, changes nothing
        shutil.copy('a.txt', 'b.txt'); shutil.copy2('a.txt', 'c.txt')
        open('c.txt').read(), oct(os.stat('a.txt').st_mode & 0o7777)
        """,
    )
    assert result[0] == "copy me"
    assert result[1] != "0o4755"
    assert not Path(sandbox.scratch, "a.txt").stat().st_mode & 0o4000


def test_other_processes_cannot_be_reprioritised(sandbox):
    parent_nice = os.getpriority(os.PRIO_PROCESS, 0)
    result = run(
        sandbox,
        """
        import os
        outcomes = {}
        for name, attempt in [
            ("setpriority_parent", lambda: os.setpriority(os.PRIO_PROCESS, os.getppid(), 19)),
            ("setpriority_user", lambda: os.setpriority(os.PRIO_USER, 0, 19)),
            ("setpriority_self", lambda: os.setpriority(os.PRIO_PROCESS, 0, 19)),
            ("affinity_parent", lambda: os.sched_setaffinity(os.getppid(), {0})),
            ("scheduler_parent", lambda: os.sched_setscheduler(
                os.getppid(), os.SCHED_IDLE, os.sched_param(0))),
        ]:
            try:
                attempt()
                outcomes[name] = "no error"
            except OSError as error:
                outcomes[name] = type(error).__name__
        outcomes
        """,
    )
    assert set(result.values()) == {"PermissionError"}, result
    assert os.getpriority(os.PRIO_PROCESS, 0) == parent_nice


@pytest.mark.skipif(not X86_64, reason="raw syscall numbers are x86_64's")
def test_kernel_interfaces_outside_the_list_answer_eperm(sandbox):
    calls = {
        "inotify_init1": "libc.inotify_init1(0)",
        "fanotify_init": "libc.fanotify_init(0, 0)",
        "memfd_create": "libc.memfd_create(b'x', 0)",
        "shmget": "libc.shmget(0, 1 << 20, 0o1600)",  # IPC_PRIVATE, IPC_CREAT|0600
        "msgget": "libc.msgget(0, 0o1600)",
        "semget": "libc.semget(0, 1, 0o1600)",
        "mq_open": "libc.syscall(240, b'q', 0o100, 0o600, None)",
        "personality": "libc.syscall(135, 0x0040000)",  # ADDR_NO_RANDOMIZE
        "perf_event_open": "libc.syscall(298, None, 0, -1, -1, 0)",
        "bpf": "libc.syscall(321, 0, None, 0)",
        "userfaultfd": "libc.syscall(323, 0)",
        "io_uring_setup": "libc.syscall(425, 8, None)",
        "keyctl": "libc.syscall(250, 0, 0)",
        "ptrace": f"libc.syscall(101, 16, {os.getpid()}, 0, 0)",
        "process_vm_readv": f"libc.syscall(310, {os.getpid()}, None, 0, None, 0, 0)",
        "ioprio_set": f"libc.syscall(251, 1, {os.getpid()}, 7)",
        "prctl_pdeathsig": "libc.prctl(1, 0, 0, 0, 0)",  # surviving the app
        "dnotify": "libc.fcntl(os.open('.', os.O_RDONLY), 1026, 0x80000001)",  # F_NOTIFY
    }
    result = syscalls(sandbox, calls)
    assert all(value == [-1, 1] or value == (-1, 1) for value in result.values()), result
    assert run(sandbox, "import os\nos.memfd_create('x')").message.count("PermissionError")


def test_no_notably_denied_call_slipped_into_an_allow_list():
    granted = {*seccomp.ALLOWED, *seccomp.IGNORED, *seccomp.UNSUPPORTED}
    assert "execve" in seccomp.NOTABLY_DENIED and "read" in granted
    assert not granted & set(seccomp.NOTABLY_DENIED)


def test_the_data_stack_runs_under_the_allow_list(sandbox):
    result = run(
        sandbox,
        """
        import sqlite3, threading, numpy as np, pandas as pd
        import matplotlib.pyplot as plt
        frame = pd.DataFrame({'x': np.arange(20), 'y': np.arange(20) ** 2})
        frame.to_csv('f.csv', index=False)
        back = pd.read_csv('f.csv')
        plt.plot(back.x, back.y)
        plt.savefig('plot.png')
        db = sqlite3.connect('t.db'); db.execute('create table t(a)'); db.commit(); db.close()
        worker = threading.Thread(target=lambda: None); worker.start(); worker.join()
        int(back.y.sum())
        """,
    )
    assert result == sum(i * i for i in range(20)), result
    assert Path(sandbox.scratch, "plot.png").stat().st_size > 1000


# -- lifetime and control --------------------------------------------------------------------


@pytest.mark.parametrize("spare", [False, True], ids=["fresh", "from-the-spare"])
def test_the_worker_dies_with_the_app(tmp_path, spare):
    """SIGKILL the app while its worker spins in a step: the worker (and a waiting spare
    interpreter) must go within seconds, though nothing closed their pipes in order."""
    script = tmp_path / "app.py"
    script.write_text(
        textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from agents.executors.sandbox import SandboxExecutor
        from agents.executors.sandbox.spawn import SPARES
        executor = SandboxExecutor(timeout=60, spare_worker={spare}, fork_from_template=False)
        executor("1")
        deadline = time.monotonic() + 60  # generous: the machine may be busy
        while {spare} and SPARES.spare is None and time.monotonic() < deadline:
            time.sleep(0.05)  # the pool refills in the background
        spare = SPARES.spare.proc.pid if SPARES.spare is not None else 0
        print(executor.worker_pid, spare, flush=True)
        executor("while True:\\n    pass")
        """)
    )
    app = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        worker, spare_pid = map(int, app.stdout.readline().split())
        assert _spins(worker), "the worker never started the endless step"
        assert not spare or _running(spare_pid), "no spare interpreter was waiting"
    finally:
        app.kill()
        app.wait()
    wait_for(lambda: not _running(worker), "the worker outlived the app")
    if spare:
        wait_for(lambda: not _running(spare_pid), "the spare interpreter outlived the app")


def _spins(pid: int) -> bool:
    """True once the process has used a tenth of a CPU-second more than when first seen."""
    start = _cpu_seconds(pid)
    return wait_for(lambda: _cpu_seconds(pid) - start >= 0.1, f"process {pid} spins")


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as file:
            return not any(line.startswith("State:\tZ") for line in file)
    except FileNotFoundError:
        return False


def test_stop_kills_code_that_ignores_interrupts():
    ignoring = threading.Event()
    # A generous timeout: the step ends as "did not stop" (killed), never as "timed out".
    with SandboxExecutor(additional_authorized_imports=["*"], timeout=120, stop_grace=1.0) as ex:
        ex.send_tools({"ignoring": lambda: ignoring.set()})
        ex("kept = 1")
        stopper = threading.Thread(target=lambda: ignoring.wait(60) and ex.interrupt())
        stopper.start()
        with pytest.raises(AgentExecutionError, match="did not stop within 1 s") as info:
            ex(
                "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nignoring()\n"
                "while True:\n    pass"
            )
        stopper.join()
        assert info.value.state_lost
        assert ex("'fresh'").output == "fresh"


FORGE = """
import gc, json, os
from agents.executors.sandbox.worker import Worker
me = [o for o in gc.get_objects() if isinstance(o, Worker)][0]
def frame(message):
    body = json.dumps(message).encode()
    os.write(me.channel.write_fd, len(body).to_bytes(4, 'big') + body)
"""


def test_forged_and_stale_frames_are_dropped(sandbox):
    sandbox("marker = 'kept'")
    # A frame for another request is ignored; the real result still arrives.
    out = run(
        sandbox,
        FORGE + "frame({'t': 'result', 'ok': True, 'output': 'FORGED', 'id': 10**9})\n'real'",
    )
    assert out == "real"
    # A frame forged with this request's id is taken as this step's result (it is the
    # code's own answer); the real result it leaves behind never reaches the next step.
    forged = "frame({'t': 'result', 'ok': True, 'output': 'x', 'logs': '', 'id': me.request_id})"
    assert run(sandbox, FORGE + forged + "\nprint('LEFTOVER')\n'late'") == "x"
    after = sandbox("marker")
    assert after.output == "kept" and "LEFTOVER" not in after.logs


# -- budgets the host enforces ---------------------------------------------------------------


def test_host_caps_text_even_when_the_worker_caps_are_patched():
    with SandboxExecutor(
        additional_authorized_imports=["*"], max_print_outputs_length=1000, max_output_chars=5000
    ) as executor:
        executor(FORGE + "me.max_log = 10**9\nme.max_output = 10**9")
        out = executor("print('z' * 3_000_000)\n'y' * 3_000_000")
        assert len(out.logs) < 2000 and "cut by the host" in out.logs
        assert len(out.output) < 6000


def _png(width: int, height: int) -> bytes:
    """A real PNG of one grey colour, tiny on disk however many pixels it declares."""
    row = b"\x00" + b"\x80" * width
    data = zlib.compress(row * height, 9)

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


def test_image_pixels_are_budgeted_before_decoding():
    big = base64.b64encode(_png(6000, 6000)).decode()  # ~100 KB that decodes to 36 MB
    result = {"t": "result", "ok": True, "output": None, "logs": "", "images": [big] * 30}
    limits = BudgetLimits(max_images=20, max_pixels=40_000_000)
    started = time.process_time()
    out = result_to_output(result, StepBudget(limits))
    assert len(out.images) == 1 and out.images[0].size == (6000, 6000)
    assert out.logs.count("not shown") == 29
    assert time.process_time() - started < 5


def test_unreadable_images_never_become_strings():
    result = {
        "t": "result",
        "ok": True,
        "output": None,
        "logs": "",
        "images": ["bm90IGFuIGltYWdl", base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"x" * 40).decode()],
    }
    out = result_to_output(result)
    assert out.images == [] and out.logs.count("not shown") == 2
    bad_value = {**result, "images": [], "output": {"$t": "image", "v": "bm90IGFuIGltYWdl"}}
    with pytest.raises(AgentExecutionError, match="refused"):
        result_to_output(bad_value)


def test_images_in_tool_arguments_are_budgeted_before_decoding():
    calls = []
    big = base64.b64encode(_png(6000, 6000)).decode()
    with SandboxExecutor(additional_authorized_imports=["*"], timeout=30) as executor:
        executor.send_tools({"measure": lambda *images: calls.append(len(images))})
        code = FORGE + (
            f"image = {{'$t': 'image', 'v': {big!r}}}\n"
            "me.calls += 1\n"
            "frame({'t': 'call', 'id': me.request_id, 'cid': me.calls, 'name': 'measure', "
            "'args': [image] * 30, 'kwargs': {}})\n"
            "reply = me.channel.receive()\n"
            "reply['ok'], reply.get('error', '')"
        )
        ok, error = executor(code).output
    assert ok is False and "pixels" in error, error
    assert calls == []


def test_displayed_images_over_the_count_are_left_out():
    with SandboxExecutor(additional_authorized_imports=["*"], max_images=3) as executor:
        out = executor(
            "from PIL import Image\nfor i in range(5):\n    display(Image.new('L', (8, 8)))"
        )
        assert len(out.images) == 3 and "not shown" in out.logs


def test_tool_arguments_and_calls_are_capped():
    with SandboxExecutor(timeout=20) as executor:
        executor.send_tools({"echo": lambda value: len(value)})
        out = executor("try:\n    echo('x' * 9_000_000)\nexcept Exception as e:\n    r = str(e)\nr")
        assert "Refused by the sandbox" in out.output and "tool arguments" in out.output
        assert executor("echo('small')").output == 5


def test_tool_time_counts_against_the_deadline(monkeypatch):
    # Tools may add `max_tool_seconds` to the step's time, no more: code that calls a tool
    # for ever still times out. Each call "takes" 5 s on the step's clock.
    clock = MovedClock()
    monkeypatch.setattr(sandbox_execution, "time", clock)
    with SandboxExecutor(timeout=20, max_tool_seconds=30) as executor:
        executor.send_tools({"nap": lambda: clock.advance(5)})
        with pytest.raises(
            AgentExecutionError, match=r"timed out after 20 seconds \(plus 30\.0 s in tools\)"
        ) as info:
            executor("while True:\n    nap()")
        assert info.value.state_lost


def test_a_tool_reply_the_code_never_reads_kills_the_worker():
    with SandboxExecutor(
        additional_authorized_imports=["*"], timeout=30, tool_reply_timeout=1.0
    ) as executor:
        executor.send_tools({"big": lambda: "x" * 5_000_000})
        # The code never reads the reply and waits past the step's timeout: the error says
        # which of the two ended it.
        with pytest.raises(AgentExecutionError, match="stopped reading") as info:
            executor(
                FORGE
                + "frame({'t': 'call', 'id': me.request_id, 'cid': -1, 'name': 'big', 'args': [], 'kwargs': {}})\nimport time\ntime.sleep(60)"
            )
        assert info.value.state_lost
        assert executor("'fresh'").output == "fresh"


# -- clean-up and stderr ---------------------------------------------------------------------


def test_reset_removes_hidden_and_deeply_nested_folders():
    with SandboxExecutor(additional_authorized_imports=["*"]) as executor:
        executor(
            "import os\nos.mkdir('hidden', 0o300)\nopen('hidden/f', 'w').write('x')\n"
            "os.mkdir('nest')\nos.chdir('nest')\n"
            "for i in range(1200):\n    os.mkdir('d' * 100)\n    os.chdir('d' * 100)\n"
            "open('deep.txt', 'w').write('deep')"
        )
        executor.reset()
        assert os.listdir(executor.scratch) == []
        assert executor("'fresh'").output == "fresh"
        own = Path(executor.scratch).parent
    assert not own.exists()


def test_files_in_unlistable_folders_count_towards_the_quota():
    with SandboxExecutor(additional_authorized_imports=["*"], disk_quota_mb=4, timeout=15) as ex:
        with pytest.raises(AgentExecutionError, match="scratch folder") as info:
            ex(
                "import os, time\nos.mkdir('h', 0o300)\nfor i in range(6):\n"
                "    open(f'h/{i}', 'wb').write(b'x' * 2**20)\nwhile True:\n    time.sleep(0.01)"
            )
        assert info.value.state_lost
        assert os.listdir(ex.scratch) == []


def test_worker_stderr_is_capped_and_never_shown_to_the_model():
    temp = tempfile.gettempdir()
    before = set(os.listdir(temp))
    with SandboxExecutor(additional_authorized_imports=["*"], timeout=20) as executor:
        executor("import os\nfor _ in range(16):\n    os.write(2, b'e' * 2**18)")  # 4 MB
        with pytest.raises(AgentExecutionError) as info:
            executor("import os\nos.write(2, b'STDERR-SECRET')\nos.abort()")
        assert "STDERR-SECRET" not in info.value.message and info.value.state_lost
    assert not [name for name in set(os.listdir(temp)) - before if "worker" in name]


def test_memory_limit_defaults_to_one_gigabyte_and_is_configurable():
    with SandboxExecutor(additional_authorized_imports=["resource"]) as executor:
        assert executor.memory_limit_mb == 1024
        limit = executor("import resource\nresource.getrlimit(resource.RLIMIT_AS)[0]").output
        assert limit == 1024 * 2**20
    with SandboxExecutor(additional_authorized_imports=["resource"], memory_limit_mb=300) as ex:
        assert (
            ex("import resource\nresource.getrlimit(resource.RLIMIT_AS)[0]").output == 300 * 2**20
        )


def test_the_worker_has_its_own_user_ipc_and_network_namespaces(sandbox):
    if not sandbox.isolation.get("namespaces"):
        pytest.skip(f"namespaces unavailable here: {sandbox.isolation['notes']}")
    names = ("ipc", "user", "net")
    inside = run(sandbox, f"import os\n[os.readlink(f'/proc/self/ns/{{n}}') for n in {names}]")
    outside = [os.readlink(f"/proc/self/ns/{name}") for name in names]
    assert all(a != b for a, b in zip(inside, outside, strict=True)), (inside, outside)
    # Its files still belong to the app's user (ids map to themselves).
    run(sandbox, "open('owned.txt', 'w').write('x')")
    assert Path(sandbox.scratch, "owned.txt").stat().st_uid == os.geteuid()


def test_a_folder_moved_during_the_quota_walk_stops_it_inside_the_scratch(tmp_path):
    top = tmp_path / "scratch"
    (top / "a" / "b" / "c").mkdir(parents=True)
    (top / "a" / "b" / "c" / "f").write_text("x")
    outside = tmp_path / "outside"
    outside.mkdir(mode=0o300)
    seen = []

    def on_entry(fd, entry):
        seen.append(entry.name)
        if entry.name == "f":  # like a live worker: move b up while the host is inside it
            os.rename(top / "a" / "b", top / "b2")
        return True

    with pytest.raises(FolderMoved):
        walk(str(top), on_entry, lambda fd, name: None)
    assert oct(outside.stat().st_mode & 0o777) == "0o300"  # never reached, never changed
    assert "outside" not in seen


def test_the_app_setting_sets_each_workers_memory(tmp_path):
    from smolui.app.factory import AgentFactory
    from smolui.app.settings import settings_from_args

    settings = settings_from_args(["--model", "scripted:demo", "--sandbox-memory-mb", "300"], {})
    agent = AgentFactory(settings, loader=None)(tmp_path / "uploads")
    try:
        assert agent.executor.memory_limit_mb == 300
        agent.executor.start()
        assert agent.executor.isolation["notes"]["rlimits"].startswith("memory_mb=300")
    finally:
        agent.executor.close()
    with pytest.raises(SystemExit):
        settings_from_args(["--sandbox-memory-mb", "10"], {})


def test_retry_after_a_turn_that_changed_the_interpreter_restarts_with_plain_values():
    with SandboxExecutor(additional_authorized_imports=["*"], timeout=20) as executor:
        executor("kept = [1, 2]\nlabel = 'a'\ndef helper():\n    return 1")
        executor.checkpoint()
        executor(
            "import sys, threading, time\nkept = 'changed'\n"
            "threading.Thread(target=lambda: time.sleep(600), daemon=True).start()\n"
            "class Hook:\n    def find_spec(self, *args):\n        return None\n"
            "sys.meta_path.insert(0, Hook())"
        )
        first = executor.worker_pid
        assert executor.rollback() is False  # not a plain rollback: the worker was replaced
        out = executor(
            "import sys, threading\n(kept, label, 'helper' in globals(), "
            "threading.active_count(), type(sys.meta_path[0]).__name__)"
        )
        assert out.output[:4] == ([1, 2], "a", False, 1), out.output
        assert out.output[4] != "Hook"
        assert executor.worker_pid != first
        assert "Retry" in out.logs and "helper" in out.logs and "thread" in out.logs
        assert "import hook" in out.logs
        assert "Retry" not in executor("1").logs  # said once


def test_retry_after_a_plain_turn_keeps_the_worker():
    with SandboxExecutor(timeout=20) as executor:
        executor("kept = 1")
        executor.checkpoint()
        first = executor.worker_pid
        executor("kept = 2\nprint('hello')")
        assert executor.rollback() is True
        out = executor("kept")
        assert out.output == 1 and executor.worker_pid == first and "Retry" not in out.logs


def _unprivileged(work) -> object:
    """Run `work(folder)` on a fresh folder as a user without capabilities (a child with
    uid 65534 when the tests run as root), so folder modes apply as to an unprivileged app."""
    folder = Path(tempfile.mkdtemp(prefix="smolui-h20-"))
    try:
        if os.geteuid() != 0:
            return work(folder)
        os.chmod(folder, 0o1777)
        read, write = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child reports through the pipe
            try:
                os.setgid(65534)
                os.setuid(65534)
                os.write(write, repr(work(folder)).encode())
            except BaseException as error:
                os.write(write, repr(("error", repr(error))).encode())
            finally:
                os._exit(0)
        os.close(write)
        with os.fdopen(read) as pipe:
            text = pipe.read()
        os.waitpid(child, 0)
        return eval(text)  # noqa: S307 - our own child's repr of tuples and booleans
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _hide_and_measure(folder: Path) -> tuple:
    scratch = folder / "scratch"
    scratch.mkdir()
    hidden = scratch / "hidden"
    hidden.mkdir()
    (hidden / "big").write_bytes(b"x" * 2**20)
    (hidden / "deeper").mkdir()
    os.chmod(hidden, 0o300)  # the code can make such folders with mkdir(mode=0o300)
    used, entries = folder_usage(str(scratch), 100)
    return used >= 2**20, entries, remove_tree(str(scratch)), scratch.exists()


def test_unlistable_folders_neither_hide_files_nor_survive_removal():
    counted, entries, removed, left = _unprivileged(_hide_and_measure)
    assert counted and entries == 3
    assert removed and not left
