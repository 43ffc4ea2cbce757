"""Containers for tests and benchmarks: podman's Docker API on a private socket, a Debian base.

No container registry is reachable from these machines, so the base image is built from
Debian packages with `debootstrap`. That takes minutes, so it happens once per machine: the
root file system's tarball is kept under ~/.cache/smolui with a stamp saying what it holds,
and the image is imported from it whenever podman's store lacks it (a wiped store costs
seconds, not another debootstrap). A file lock keeps two processes from bootstrapping at once.

`PodmanService` serves the Docker API on a socket in a temp folder (the `docker` SDK talks
to it through DOCKER_HOST) and is stopped by its pid. `engine_leftovers` lists what tests
must not leave behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

BASE_IMAGE = "localhost/debian:bookworm"
SUITE = "bookworm"
VARIANT = "minbase"
CONTAINERS_CONF = Path("/etc/containers/containers.conf")


def cache_dir() -> Path:
    """Where the debootstrapped root file system is kept between runs."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "smolui"


def missing_engine() -> str | None:
    """Why containers cannot run here (a message for `pytest.skip`), or None if they can."""
    for tool in ("podman", "runc", "debootstrap"):
        if shutil.which(tool) is None and not Path(f"/usr/sbin/{tool}").exists():
            return f"{tool} is not installed: bash scripts/install.sh --tests"
    if os.geteuid() != 0:
        return "the container tests run podman as root (debootstrap and podman import need it)"
    return None


def _image_exists(name: str) -> bool:
    found = subprocess.run(["podman", "image", "exists", name], capture_output=True)
    return found.returncode == 0


def ensure_base_image(name: str = BASE_IMAGE) -> str:
    """Make `name` (a minimal Debian bookworm) exist in podman's store; return it.

    Cheap when it exists; imports the cached tarball when only the store lost it; else runs
    debootstrap (2-3 minutes) and caches the tarball first.
    """
    if _image_exists(name):
        return name
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "debian-rootfs.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be bootstrapping right now
        if not _image_exists(name):
            subprocess.run(["podman", "import", str(_rootfs_tarball(folder)), name],
                           check=True, capture_output=True, timeout=600)  # fmt: skip
    return name


def _rootfs_tarball(folder: Path) -> Path:
    """The cached tarball of a debootstrapped root file system, made if missing or stale."""
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True)
    want = f"debootstrap --variant={VARIANT} {SUITE} {arch.stdout.strip()}"
    tarball, stamp = folder / f"debian-{SUITE}.tar", folder / f"debian-{SUITE}.stamp"
    if tarball.exists() and stamp.exists() and stamp.read_text() == want:
        return tarball
    stamp.unlink(missing_ok=True)
    rootfs = Path(tempfile.mkdtemp(prefix="smolui-rootfs-", dir="/var/tmp"))
    try:
        subprocess.run(["debootstrap", f"--variant={VARIANT}", SUITE, str(rootfs)],
                       check=True, capture_output=True, timeout=1200)  # fmt: skip
        partial = tarball.with_suffix(".partial")
        subprocess.run(["tar", "-C", str(rootfs), "-cf", str(partial), "."], check=True)
        partial.replace(tarball)
        stamp.write_text(want)  # written last: a stamp always names a whole tarball
    finally:
        shutil.rmtree(rootfs, ignore_errors=True)
    return tarball


class PodmanService:
    """`podman system service` serving the Docker API on a unix socket in a temp folder."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="smolui-podman-"))
        self.socket = self.folder / "docker.sock"
        self.url = f"unix://{self.socket}"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> PodmanService:
        self._log = open(self.folder / "service.log", "wb")  # noqa: SIM115
        self._process = subprocess.Popen(
            ["podman", "system", "service", "--time=0", self.url],
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while not self._answers():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"podman system service did not start: {self.log_tail()}")
            time.sleep(0.1)
        return self

    def _answers(self) -> bool:
        import docker

        if not self.socket.exists():
            return False
        try:
            with contextlib.closing(docker.DockerClient(base_url=self.url)) as client:
                return bool(client.ping())
        except docker.errors.DockerException:
            return False

    @property
    def pid(self) -> int | None:
        """The service's process id while it runs."""
        return self._process.pid if self._process is not None else None

    def log_tail(self, chars: int = 3000) -> str:
        path = self.folder / "service.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            os.kill(process.pid, 15)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, 9)
                process.wait(timeout=20)
        if getattr(self, "_log", None) is not None:
            self._log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def engine_leftovers(label: str) -> dict[str, list[str]]:
    """Containers, networks and volumes carrying `label`, and their processes (conmon).

    Asked of podman itself, so it holds whether or not the API service runs.
    """

    def names(*command: str, field: str = "Name") -> list[str]:
        listed = subprocess.run(["podman", *command, "--filter", f"label={label}",
                                 "--format", f"{{{{.{field}}}}}"], capture_output=True, text=True,
                                check=True)  # fmt: skip
        return sorted(listed.stdout.split())

    containers = names("ps", "--all", field="Names")
    found = {
        "containers": containers,
        "networks": names("network", "ls"),
        "volumes": names("volume", "ls"),
        "processes": _conmon_of(containers),
    }
    return {kind: items for kind, items in found.items() if items}


def _conmon_of(containers: list[str]) -> list[str]:
    """Running `conmon` monitors (one per live container) of the named containers."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if command.startswith("/usr/bin/conmon") and any(name in command for name in containers):
            found.append(f"conmon {entry.name}")
    return found


@pytest.fixture(scope="module")
def podman_service() -> Iterator[PodmanService]:
    """podman's Docker API on a private socket for a test module, stopped by its pid after.

    Skips where podman is not installed; builds the Debian base image first (cached).
    """
    reason = missing_engine()
    if reason:
        pytest.skip(reason)
    ensure_base_image()
    service = PodmanService().start()
    yield service
    pid = service.pid
    service.stop()
    assert pid is not None and not Path(f"/proc/{pid}").exists(), "podman service still runs"
