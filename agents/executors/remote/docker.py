"""`DockerExecutor`: a kernel gateway in a local container, one container per executor.

Works with Docker, or with podman serving the Docker API (DOCKER_HOST=unix://...). The
kernel image is built from `kernel.Dockerfile` on first use (`kernel_image`).

How the host reaches a container that has no way out: the container gets no network at
all (`network_mode="none"`: loopback only), so code can reach neither the internet, nor
this host, nor another agent's container. Its gateway listens on a unix socket in a
private folder bind-mounted into the container (`kernel_serve`), and `SocketRelay` offers
that socket to the gateway client on a loopback port: the kernel protocol is the Jupyter
executor's, unchanged. (An internal network would not do: on podman the host has no
address on an internal bridge, port publishing needs a non-internal network, and agents
on one internal network could reach each other.) The engine must therefore run on this
machine; `network="bridge"` instead publishes the gateway's port on 127.0.0.1, for engines
whose bind mounts cannot carry a socket (Docker Desktop), and gives the code network.

The container runs as a non-root user with all capabilities dropped, a read-only root
file system, a tmpfs home, memory, CPU and process limits, and is removed on `close()`,
when the executor is collected, at interpreter exit, or by the next executor to start
after this process was killed (`docker_owners`).
"""

from __future__ import annotations

import logging
import os
import time
import weakref
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError
from agents.executors.remote.docker_owners import (
    FOLDER_LABEL,
    LABEL,
    OWNER_LABEL,
    make_socket_folder,
    remove_orphans,
    remove_socket_folder,
    this_owner,
)
from agents.executors.remote.gateway import GatewayError, GatewayKernel
from agents.executors.remote.kernel_image import (
    DEFAULT_BASE,
    DOCKERFILE,
    check_pip_cert,
    ensure_kernel_image,
)
from agents.executors.remote.provisioned import (
    GATEWAY_PORT,
    ProvisionedExecutor,
    gateway_command,
    require_sdk,
)
from agents.executors.remote.socket_relay import SocketRelay

logger = logging.getLogger(__name__)

__all__ = ["DOCKERFILE", "LABEL", "DockerExecutor", "container_spec"]

SOCKET_DIR = "/run/smolui"
SOCKET_NAME = "gateway.sock"


def container_spec(
    image: str | None,
    token: str,
    *,
    network: str | None = None,
    memory_mb: int = 2048,
    cpus: float = 2.0,
    pids_limit: int = 256,
    home_mb: int = 1024,
) -> dict[str, Any]:
    """Keyword arguments for `docker.containers.run` (docker SDK) to start the gateway; the
    socket folder and labels are added when it starts (`DockerExecutor`).

    Args:
        image: The kernel image (None: filled in once built).
        token: The gateway's auth token (given as `KG_AUTH_TOKEN`, not on the command line).
        network: None for no network at all (the gateway then listens on a unix socket),
            or a network to join, with the gateway's port published on 127.0.0.1.
        memory_mb: Memory limit (swap included; the tmpfs home counts too).
        cpus: CPU limit.
        pids_limit: Most processes and threads.
        home_mb: Size of the writable tmpfs home (the kernel's working folder).
    """
    spec: dict[str, Any] = {
        "image": image,
        "command": ["python", "/opt/kernel/serve.py", f"{SOCKET_DIR}/{SOCKET_NAME}"],
        "environment": {"KG_AUTH_TOKEN": token},
        "detach": True,
        "network_mode": "none",
        "mem_limit": f"{memory_mb}m",
        "memswap_limit": f"{memory_mb}m",
        "nano_cpus": int(cpus * 1_000_000_000),
        "pids_limit": pids_limit,
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        "read_only": True,
        "tmpfs": {"/home/kernel": f"size={home_mb}m,mode=1777", "/tmp": "size=256m,mode=1777"},
        "user": "kernel",
        "working_dir": "/home/kernel",
    }
    if network is not None:
        del spec["network_mode"]
        spec["command"] = gateway_command()
        spec["network"] = network
        spec["ports"] = {f"{GATEWAY_PORT}/tcp": ("127.0.0.1", None)}
    return spec


class _Started:
    """One container and what this host keeps for it; `remove()` frees all of it (twice
    is harmless), also from a finalizer."""

    def __init__(self, container: Any, folder: Path | None) -> None:
        self.container = container
        self.folder = folder
        self.relay: SocketRelay | None = None

    def remove(self) -> None:
        relay, self.relay = self.relay, None
        container, self.container = self.container, None
        if relay is not None:
            relay.close()
        if container is not None:
            try:
                container.remove(force=True)
            except Exception as error:  # already gone, or the engine stopped
                logger.info("could not remove container %s: %s", container.name, error)
        if self.folder is not None:
            remove_socket_folder(self.folder)
            self.folder = None


class DockerExecutor(ProvisionedExecutor):
    """Runs code in a kernel inside a container (`executor_type="docker"`).

    Args:
        image: An existing image to run instead of building the kernel image.
        base_image: The base the kernel image is built on (a Debian-like image).
        pip_cert: A CA bundle on this machine for pip during the build, where TLS is
            re-signed by a proxy.
        network: None (default): no network at all. Or a network's name, e.g. "bridge",
            where the engine runs elsewhere (Docker Desktop): the port is then published on
            127.0.0.1 and code has that network.
        memory_mb: The container's memory limit.
        cpus: Its CPU limit.
        pids_limit: Most processes and threads in it.
        docker_host: The engine's address, e.g. "unix:///run/podman/podman.sock"
            (default: DOCKER_HOST and the other DOCKER_* variables).
        docker_client: A ready `docker.DockerClient` instead.
        **kwargs: `RemoteExecutor` arguments (timeout, import policy, upload folders...).
    """

    kind = "docker"

    def __init__(
        self,
        image: str | None = None,
        *,
        base_image: str = DEFAULT_BASE,
        pip_cert: str | None = None,
        network: str | None = None,
        memory_mb: int = 2048,
        cpus: float = 2.0,
        pids_limit: int = 256,
        docker_host: str | None = None,
        docker_client: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        if docker_client is None:
            require_sdk("docker", "docker", "docker")
        if memory_mb < 128 or cpus <= 0 or pids_limit < 16:
            raise AgentConfigError("DockerExecutor: memory_mb >= 128, cpus > 0, pids_limit >= 16.")
        check_pip_cert(pip_cert)
        self.image = image
        self.base_image = base_image
        self.pip_cert = pip_cert
        self.network = network
        self.docker_host = docker_host
        self.spec = container_spec(
            image, self.token, network=network, memory_mb=memory_mb, cpus=cpus,
            pids_limit=pids_limit,
        )  # fmt: skip
        self._client = docker_client
        self._started: _Started | None = None
        self._remover: weakref.finalize | None = None
        self.container_id: str | None = None

    def _docker(self) -> Any:
        if self._client is None:
            import requests

            docker = require_sdk("docker", "docker", "docker")
            try:
                if self.docker_host:
                    self._client = docker.DockerClient(base_url=self.docker_host)
                else:
                    self._client = docker.from_env()
                self._client.ping()
            except (docker.errors.DockerException, requests.RequestException) as error:
                self._client = None
                raise GatewayError(
                    f"Docker is not reachable ({error}); is the engine running? (DOCKER_HOST "
                    "or executor_kwargs['docker_host'] names it)"
                ) from None
        return self._client

    def _open_kernel(self) -> GatewayKernel:
        # A container that died (its gateway killed, or removed by hand) is replaced.
        if self.url and not self._container_runs():
            self._release()
        return super()._open_kernel()

    def _container_runs(self) -> bool:
        container = self._started.container if self._started is not None else None
        if container is None:
            return False
        try:
            container.reload()
        except Exception as error:  # gone from the engine, or the engine is gone
            logger.info("kernel container %s is lost: %s", self.container_id, error)
            return False
        return container.status == "running"

    def _provision(self) -> str:
        self._release()  # what a failed start left behind
        client = self._docker()
        remove_orphans(client)
        image = ensure_kernel_image(client, self.image, self.base_image, self.pip_cert)
        spec = {**self.spec, "image": image, "labels": {LABEL: "docker", OWNER_LABEL: this_owner()}}
        folder = None
        if self.network is None:
            folder = make_socket_folder()
            spec["volumes"] = {str(folder): {"bind": SOCKET_DIR, "mode": "rw"}}
            spec["labels"][FOLDER_LABEL] = str(folder)
        started = _Started(None, folder)
        # Removed with the executor even if `close()` is never called (and at exit).
        self._started, self._remover = started, weakref.finalize(self, started.remove)
        started.container = client.containers.run(**spec)
        self.container_id = str(started.container.id)[:12]
        if folder is None:
            return self._published_url(started.container)
        self._wait_for_socket(started.container, folder / SOCKET_NAME)
        started.relay = SocketRelay(folder / SOCKET_NAME)
        return started.relay.url

    def _published_url(self, container: Any) -> str:
        container.reload()
        published = container.attrs["NetworkSettings"]["Ports"][f"{GATEWAY_PORT}/tcp"][0]
        return f"http://127.0.0.1:{published['HostPort']}"

    def _wait_for_socket(self, container: Any, path: Path) -> None:
        """Wait for the gateway's socket, then close its folder to the container: code must
        not write files on this host's disk, outside the container's limits."""
        deadline = time.monotonic() + self.startup_timeout
        while not path.exists():
            container.reload()
            if container.status in ("exited", "dead") or time.monotonic() > deadline:
                logs = container.logs(tail=20).decode(errors="replace")
                raise GatewayError(
                    f"The kernel container {self.container_id} did not serve its gateway "
                    f"(status {container.status}): {logs.strip()[-1500:]}"
                )
            time.sleep(0.1)
        os.chmod(path.parent, 0o755)

    def _release(self) -> None:
        remover, self._remover, self._started = self._remover, None, None
        self.url = ""
        if remover is not None:
            remover()

    def _where(self) -> dict[str, Any]:
        ident = self.container_id or "not started"
        egress = "no network" if self.network is None else f"network {self.network!r}"
        return {
            "where": self.url or "docker (starts with the first step)",
            "level": f"Docker container {ident} ({egress}, non-root, read-only root, "
            f"no capabilities, {self.spec['mem_limit']} memory, "
            f"{self.spec['nano_cpus'] / 1e9:g} CPUs, {self.spec['pids_limit']} processes; "
            "the host kernel is shared)",
        }
