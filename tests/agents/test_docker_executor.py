"""`executor_type="docker"` for real: podman serving the Docker API, the kernel image built
from the debootstrapped Debian base, one container per agent with no network, limits, and
nothing left behind (also after the app is killed). The first tests here need no engine."""

from __future__ import annotations

import gc
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from agents import CodeAgent, ScriptedModel
from agents.errors import AgentExecutionError
from agents.executors.remote.docker import DockerExecutor, container_spec
from agents.executors.remote.docker_owners import (
    FOLDER_LABEL,
    FOLDER_PREFIX,
    LABEL,
    OWNER_LABEL,
    is_orphan,
    this_owner,
)
from agents.executors.remote.kernel_image import kernel_image_tag
from tests.containers import BASE_IMAGE, engine_leftovers, podman_service  # noqa: F401
from tools import tool

CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"


@tool
def shout(text: str) -> str:
    """Returns the text in capitals.

    Args:
        text: What to shout.
    """
    return text.upper()


@tool
def host_pid() -> int:
    """Returns the process id of whoever runs the tool."""
    return os.getpid()


# -- without an engine ----------------------------------------------------------------------


def test_the_container_has_no_network_no_privileges_and_limits():
    spec = container_spec("img:1", "secret", memory_mb=512, cpus=1.5, pids_limit=64)
    assert spec["network_mode"] == "none" and "ports" not in spec and "network" not in spec
    assert spec["environment"] == {"KG_AUTH_TOKEN": "secret"}
    assert "secret" not in " ".join(spec["command"])  # not visible in `ps` or `docker ps`
    assert spec["cap_drop"] == ["ALL"] and "no-new-privileges" in spec["security_opt"]
    assert spec["read_only"] is True and spec["user"] == "kernel"
    assert spec["mem_limit"] == spec["memswap_limit"] == "512m"
    assert spec["nano_cpus"] == 1_500_000_000 and spec["pids_limit"] == 64
    opened = container_spec("img:1", "secret", network="bridge")
    assert opened["network"] == "bridge" and "network_mode" not in opened
    assert opened["ports"] == {"8888/tcp": ("127.0.0.1", None)}


def test_the_image_is_named_after_what_it_is_built_from():
    assert kernel_image_tag("a:1") == kernel_image_tag("a:1") != kernel_image_tag("b:1")
    assert kernel_image_tag().startswith("smolui-kernel:")


def test_an_owner_is_an_orphan_only_when_its_process_is_gone():
    mine = this_owner()
    assert not is_orphan(mine)
    host, pid, started = mine.split("/")
    assert is_orphan(f"{host}/{pid}/{int(started) + 1}")  # the pid reused by another process
    assert not is_orphan(f"another-host/{pid}/1") and not is_orphan("garbage")
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert is_orphan(f"{host}/{child.pid}/1")


def test_an_engine_refusal_fails_the_step_and_leaves_no_folder(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))

    class Refusing:
        """Stands in for an engine that has the image but refuses to run containers."""

        def __init__(self) -> None:
            self.images = self.containers = self
            self.specs: list[dict] = []

        def get(self, name):
            return name

        def list(self, **filters):
            return []

        def run(self, **spec):
            self.specs.append(spec)
            raise RuntimeError("no space left on device")

    engine = Refusing()
    executor = DockerExecutor(docker_client=engine, timeout=5)
    with pytest.raises(AgentExecutionError, match="no space left on device") as failed:
        executor("1")
    assert "docker kernel machine" in str(failed.value)
    spec = engine.specs[0]
    assert spec["labels"][LABEL] == "docker" and spec["labels"][OWNER_LABEL] == this_owner()
    assert list(spec["volumes"].values()) == [{"bind": "/run/smolui", "mode": "rw"}]
    executor.close()
    assert list(tmp_path.iterdir()) == []  # the socket folder went with the failed start


# -- with podman ----------------------------------------------------------------------------

engine = pytest.mark.slow


def _mine() -> dict[str, list[str]]:
    """Containers, networks, volumes and processes this test process's executors own: another
    suite on the same machine may have its own running at the same moment."""
    return engine_leftovers(f"{OWNER_LABEL}={this_owner()}")


def _stray_socket_folders(before: set[Path]) -> list[Path]:
    """Socket folders made since `before` that no executor container names any more."""
    listed = subprocess.run(
        ["podman", "ps", "--all", "--filter", f"label={LABEL}",
         "--format", f'{{{{index .Labels "{FOLDER_LABEL}"}}}}'],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    named = {Path(line) for line in listed.stdout.split()}
    found = Path(tempfile.gettempdir()).glob(f"{FOLDER_PREFIX}*/run")
    return [folder for folder in found if folder not in before and folder not in named]


@pytest.fixture
def nothing_left_behind(podman_service):  # noqa: F811
    """Fails a test that leaves a container, network, volume, process, relay or folder."""
    before = _mine()
    folders = set(Path(tempfile.gettempdir()).glob(f"{FOLDER_PREFIX}*/run"))
    yield
    gc.collect()  # executors a test dropped are removed by their finalizers
    assert _mine() == before
    relays = [t.name for t in threading.enumerate() if t.name.startswith("smolui-relay")]
    assert relays == []
    assert _stray_socket_folders(folders) == []


@pytest.fixture
def docker_kwargs(podman_service, nothing_left_behind):  # noqa: F811
    return {
        "base_image": BASE_IMAGE,
        "pip_cert": CA_BUNDLE if Path(CA_BUNDLE).is_file() else None,
        "docker_host": podman_service.url,
        "startup_timeout": 120,
        "request_timeout": 60,
    }


def code(body: str) -> str:
    return f"Thought: go.\n<code>\n{body}\n</code>"


def make_agent(docker_kwargs: dict, replies: list[str], **kwargs) -> CodeAgent:
    return CodeAgent(
        tools=[shout, host_pid],
        model=ScriptedModel(replies),
        additional_authorized_imports=["*"],
        executor_type="docker",
        executor_kwargs={**docker_kwargs, "timeout": 60, **kwargs},
        verbosity_level=-1,
    )


@engine
def test_steps_keep_variables_and_tools_run_on_the_host(docker_kwargs):
    agent = make_agent(
        docker_kwargs,
        [
            code("import os\ntotal = 40\nprint('uid', os.getuid(), 'pid', os.getpid())"),
            code("loud = shout(text='hi')\nprint(loud, total)"),
            code("final_answer((total + 2, host_pid(), loud))"),
        ],
    )
    try:
        assert isinstance(agent.executor, DockerExecutor)
        assert agent.run("go") == (42, os.getpid(), "HI")  # built on first use if missing
        steps = agent.memory.steps
        assert "uid 1000 " in steps[1].observations  # not root in the container
        assert "HI 40" in steps[2].observations
        level = agent.executor.isolation["level"]
        assert level.startswith("Docker container ") and "no network" in level
    finally:
        agent.close()


@engine
def test_the_code_reaches_no_network(docker_kwargs):
    import psutil

    host_addresses = [
        address.address
        for addresses in psutil.net_if_addrs().values()
        for address in addresses
        if address.family == socket.AF_INET and not address.address.startswith("127.")
    ]
    listener = socket.create_server(("0.0.0.0", 0))  # this host, on every interface
    port = listener.getsockname()[1]
    targets = [("1.1.1.1", 80), ("127.0.0.1", port)] + [(a, port) for a in host_addresses]
    probe = (
        "import socket\n"
        "def reach(address):\n"
        "    try:\n"
        "        socket.create_connection(address, timeout=5).close()\n"
        "        return 'connected'\n"
        "    except OSError as error:\n"
        "        return type(error).__name__\n"
        f"[[name for _, name in socket.if_nameindex()], [reach(t) for t in {targets!r}]]"
    )
    executor = DockerExecutor(additional_authorized_imports=["socket"], **docker_kwargs)
    try:
        interfaces, results = executor(probe).output
        assert interfaces == ["lo"]
        assert "connected" not in results and len(results) == len(targets)
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing from the container came in
    finally:
        executor.close()
        listener.close()


@engine
def test_a_memory_bomb_dies_and_the_agent_is_told_its_state_was_lost(docker_kwargs):
    agent = make_agent(
        docker_kwargs,
        [
            code("kept = 7"),
            code("bomb = b'x' * (1024 * 2**20)"),  # four times the container's memory
            code("final_answer('kept' in globals())"),
        ],
        memory_mb=256,
    )
    try:
        assert agent.run("explode") is False
        error = agent.memory.steps[2].error
        assert "kernel died" in str(error) and "were lost" in str(error)
    finally:
        agent.close()


@engine
def test_processes_and_cpu_are_limited(docker_kwargs):
    executor = DockerExecutor(
        additional_authorized_imports=["threading", "pathlib"],
        pids_limit=64,
        cpus=0.5,
        **docker_kwargs,
    )
    spawn = (
        "import threading\n"
        "gate, started, refused = threading.Event(), 0, ''\n"
        "try:\n"
        "    for _ in range(200):\n"
        "        threading.Thread(target=gate.wait, daemon=True).start()\n"
        "        started += 1\n"
        "except RuntimeError as error:\n"
        "    refused = str(error)\n"
        "gate.set()\n"
        "(started, refused)"
    )
    try:
        started, refused = executor(spawn).output
        assert started < 64 and "can't start new thread" in refused
        quota = executor(
            "from pathlib import Path\n"
            "v2, v1 = Path('/sys/fs/cgroup/cpu.max'), Path('/sys/fs/cgroup/cpu/cpu.cfs_quota_us')\n"
            "v2.read_text().split()[0] if v2.exists() else v1.read_text().strip()"
        ).output
        period = 100_000  # both engines' default CFS period
        assert int(quota) == period // 2
    finally:
        executor.close()


@engine
def test_close_and_collection_remove_the_container(docker_kwargs):
    executor = DockerExecutor(**docker_kwargs)
    executor.start()
    name = executor.container_id
    assert any(name in c for c in _running_ids()) and _mine()
    executor.close()
    assert not any(name in c for c in _running_ids())
    dropped = DockerExecutor(**docker_kwargs)
    dropped.start()
    del dropped  # never closed: its finalizer removes the container
    gc.collect()
    assert _mine() == {}


@engine
def test_containers_of_a_killed_app_are_removed_by_the_next_start(docker_kwargs):
    app = subprocess.Popen(
        [sys.executable, "-c", _APP, repr(docker_kwargs)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    live = DockerExecutor(**docker_kwargs)
    try:
        orphan = app.stdout.readline().strip()
        assert orphan, "the app did not start its executor"
        folder = Path(_label(orphan, FOLDER_LABEL))
        os.kill(app.pid, signal.SIGKILL)
        app.wait()
        assert orphan in _running_ids() and folder.exists()  # left behind
        live.start()  # the next start, in another process
        assert orphan not in _running_ids() and not folder.exists()
        assert live.container_id in _running_ids()  # a live owner's container stays
        assert live("1 + 1").output == 2
    finally:
        live.close()
        app.kill()
        app.wait()
        app.stdout.close()


_APP = """
import ast, sys, threading
from agents.executors.remote.docker import DockerExecutor
executor = DockerExecutor(**ast.literal_eval(sys.argv[1]))
executor.start()
print(executor.container_id, flush=True)
threading.Event().wait()  # until killed
"""


def _label(container: str, name: str) -> str:
    inspected = subprocess.run(
        ["podman", "inspect", "--format", f'{{{{index .Config.Labels "{name}"}}}}', container],
        capture_output=True,
        text=True,
        check=True,
    )
    return inspected.stdout.strip()


def _running_ids() -> list[str]:
    listed = subprocess.run(
        ["podman", "ps", "--all", "--filter", f"label={LABEL}", "--format", "{{.ID}}"],
        capture_output=True,
        text=True,
    )
    return listed.stdout.split()
