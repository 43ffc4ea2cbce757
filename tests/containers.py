"""Containers for tests and benchmarks: podman's Docker API on a private socket, a Debian base.

No container registry is reachable from these machines, so the base image is built from
Debian packages with `debootstrap`. That takes minutes, so it happens once per machine: the
root file system's tarball is kept under ~/.cache/smolui with a stamp saying what it holds,
and the image is imported from it whenever podman's store lacks it (a wiped store costs
seconds, not another debootstrap). A file lock keeps two processes from bootstrapping at once.

`app_image()` builds the app's own image (the top-level Dockerfile) on that base with podman
and returns its tag; podman's layer cache keeps it cheap after the first build on a machine.

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


APP_IMAGE = "localhost/smolui-app:test"
APP_IMAGE_LABEL = "smolui.app-image"
ROOT = Path(__file__).resolve().parents[1]
HOST_CA = Path("/etc/ssl/certs/ca-certificates.crt")


def app_image(tag: str = APP_IMAGE, timeout: float = 3600.0) -> str:
    """Build the app image from this checkout's Dockerfile with podman; return `tag`.

    For the image test and the compose fleet. The base is `ensure_base_image()`. The first
    build on a machine compiles llama.cpp (about 15 minutes on 2 busy cores); after that
    podman's layer cache redoes only what changed (the code layer: seconds), and pip's
    cache mount keeps the compiled wheel when requirements.txt changes. Builds are
    serialized by a file lock, so two test processes share one. The log of the last build
    is `cache_dir() / "app-image.log"`.

    Args:
        tag: The image's name.
        timeout: Seconds the build may take.

    Raises:
        RuntimeError: The build failed (with the end of its log).
    """
    ensure_base_image()
    folder = cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "app-image.log"
    with open(folder / "app-image.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(log, "wb") as output:
            built = subprocess.run(app_image_build_command(tag), cwd=ROOT, stdout=output,
                                   stderr=subprocess.STDOUT, timeout=timeout)  # fmt: skip
    if built.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"podman build of {tag} failed ({built.returncode}):\n{tail}")
    return tag


def app_image_build_command(tag: str = APP_IMAGE, *, no_cache: bool = False) -> list[str]:
    """The `podman build` command line for the app image on this machine.

    Docker format, so the image keeps its HEALTHCHECK. pip inside the build trusts this
    machine's CA bundle (registries are reached through a TLS-re-signing proxy here). When
    pip's find-links folder holds a torch wheel (the CPU build, as here), it is mounted and
    used; otherwise the Dockerfile takes torch from PyTorch's CPU index.

    Args:
        tag: The image's name.
        no_cache: Rebuild every layer (pip's cache mount still serves built wheels).
    """
    command = ["podman", "build", "--format", "docker", "--label", f"{APP_IMAGE_LABEL}=1",
               "--build-arg", f"BASE_IMAGE={BASE_IMAGE}", "-t", tag]  # fmt: skip
    if no_cache:
        command.append("--no-cache")
    if HOST_CA.is_file():
        command += ["-v", f"{HOST_CA}:/host-ca.crt:ro", "--build-arg", "PIP_CERT=/host-ca.crt"]
    wheels = os.environ.get("PIP_FIND_LINKS", "")
    if wheels and any(Path(wheels).glob("torch-*.whl")):
        command += ["-v", f"{wheels}:/wheels:ro", "--build-arg", "WHEELS=/wheels",
                    "--build-arg", "TORCH_INDEX="]  # fmt: skip
    return [*command, str(ROOT)]


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
