"""`DockerExecutor`: a kernel gateway in a local Docker container, one container per executor.

The image is built from `kernel.Dockerfile` on first use (or named with `image=`). The
container joins an *internal* Docker network by default: no route to the internet or
the LAN, while this host still reaches the gateway at the container's address. It runs
as a non-root user with all capabilities dropped, a read-only root file system, memory,
CPU and process limits, and is removed on `close()`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError
from agents.executors.remote.gateway import GatewayError
from agents.executors.remote.provisioned import GATEWAY_PORT, ProvisionedExecutor, require_sdk

logger = logging.getLogger(__name__)

DOCKERFILE = Path(__file__).with_name("kernel.Dockerfile")
DEFAULT_IMAGE = "smolui-kernel:1"
INTERNAL_NETWORK = "smolui-kernels"
LABEL = "smolui.executor"


def container_spec(
    image: str,
    token: str,
    *,
    network: str = INTERNAL_NETWORK,
    memory_mb: int = 2048,
    cpus: float = 2.0,
    pids_limit: int = 256,
    home_mb: int = 1024,
) -> dict[str, Any]:
    """Keyword arguments for `docker.containers.run` (docker SDK) to start the gateway.

    Args:
        image: The kernel image.
        token: The gateway's auth token (given as `KG_AUTH_TOKEN`).
        network: The Docker network ("smolui-kernels" is created internal: no egress).
        memory_mb: Memory limit (swap included).
        cpus: CPU limit.
        pids_limit: Most processes and threads.
        home_mb: Size of the writable tmpfs home (the kernel's working folder).
    """
    spec: dict[str, Any] = {
        "image": image,
        "command": [
            "jupyter",
            "kernelgateway",
            "--ip=0.0.0.0",
            f"--port={GATEWAY_PORT}",
            "--port_retries=0",
        ],
        "environment": {"KG_AUTH_TOKEN": token},
        "detach": True,
        "network": network,
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
        "labels": {LABEL: "docker"},
    }
    if network != INTERNAL_NETWORK:
        spec["ports"] = {f"{GATEWAY_PORT}/tcp": ("127.0.0.1", None)}
    return spec


class DockerExecutor(ProvisionedExecutor):
    """Runs code in a kernel inside a Docker container (`executor_type="docker"`).

    Args:
        image: The kernel image; built from `kernel.Dockerfile` when missing.
        network: "smolui-kernels" (default: an internal network, no egress), or an existing
            network's name, e.g. "bridge" where the host cannot reach container addresses
            (Docker Desktop): then the port is published on 127.0.0.1 and code has network.
        memory_mb: The container's memory limit.
        cpus: Its CPU limit.
        pids_limit: Most processes and threads in it.
        docker_client: A ready `docker.DockerClient` (default: `docker.from_env()`, which
            reads DOCKER_HOST and friends).
        **kwargs: `RemoteExecutor` arguments (timeout, import policy, upload folders...).
    """

    kind = "docker"

    def __init__(
        self,
        image: str = DEFAULT_IMAGE,
        *,
        network: str = INTERNAL_NETWORK,
        memory_mb: int = 2048,
        cpus: float = 2.0,
        pids_limit: int = 256,
        docker_client: Any = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        if docker_client is None:
            require_sdk("docker", "docker", "docker")
        if memory_mb < 128 or cpus <= 0 or pids_limit < 16:
            raise AgentConfigError("DockerExecutor: memory_mb >= 128, cpus > 0, pids_limit >= 16.")
        self.image = image
        self.network = network
        self.spec = container_spec(
            image,
            self.token,
            network=network,
            memory_mb=memory_mb,
            cpus=cpus,
            pids_limit=pids_limit,
        )
        self._client = docker_client
        self.container: Any = None
        self.container_id: str | None = None

    def _docker(self) -> Any:
        if self._client is None:
            docker = require_sdk("docker", "docker", "docker")
            try:
                self._client = docker.from_env()
            except docker.errors.DockerException as error:
                raise GatewayError(
                    f"Docker is not reachable ({error}); is the engine running?"
                ) from None
        return self._client

    def _provision(self) -> str:
        client = self._docker()
        self._ensure_image(client)
        if self.network == INTERNAL_NETWORK and not client.networks.list(names=[INTERNAL_NETWORK]):
            client.networks.create(INTERNAL_NETWORK, driver="bridge", internal=True)
        self.container = client.containers.run(**self.spec)
        self.container.reload()
        self.container_id = str(self.container.id)[:12]
        settings = self.container.attrs["NetworkSettings"]
        if self.network == INTERNAL_NETWORK:
            address = settings["Networks"][INTERNAL_NETWORK]["IPAddress"]
            return f"http://{address}:{GATEWAY_PORT}"
        published = settings["Ports"][f"{GATEWAY_PORT}/tcp"][0]
        return f"http://127.0.0.1:{published['HostPort']}"

    def _ensure_image(self, client: Any) -> None:
        docker = require_sdk("docker", "docker", "docker")
        try:
            client.images.get(self.image)
        except docker.errors.ImageNotFound:
            if self.image != DEFAULT_IMAGE:
                raise GatewayError(
                    f"Docker image {self.image!r} not found; pull or build it."
                ) from None
            client.images.build(
                path=str(DOCKERFILE.parent), dockerfile=DOCKERFILE.name, tag=self.image, rm=True
            )

    def _release(self) -> None:
        container, self.container = self.container, None
        self.url = ""
        if container is not None:
            try:
                container.remove(force=True)
            except Exception as error:  # already gone, or the engine stopped
                logger.info("could not remove container %s: %s", self.container_id, error)

    def _where(self) -> dict[str, Any]:
        ident = self.container_id or "not started"
        egress = "no network" if self.network == INTERNAL_NETWORK else f"network {self.network!r}"
        return {
            "where": self.url or "docker (starts with the first step)",
            "level": f"Docker container {ident} ({egress}, non-root, read-only root, "
            "no capabilities; the host kernel is shared)",
        }
