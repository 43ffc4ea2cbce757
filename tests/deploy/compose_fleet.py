"""The fleet of deploy/compose.yaml brought up for real: Debian's `docker-compose` (1.29) on
podman's Docker API, every image built here from the Debian base. The replicas run code in the
fleet's Jupyter Kernel Gateway (`kernels`), on an internal network of the project's own.

A `ComposeFleet` is one compose project with a name of its own (`smolui-fleet-test-<hex>`),
so it never meets another test's containers or a person's own `smolui` project. A small
override file, written next to the test's logs, adds only what a test needs on top of the
real compose file: the scripted model's replies mounted into both replicas, PostgreSQL and
HAProxy's stats page published on loopback ports (the test reads the store and waits on
HAProxy's view of the replicas), and a per-user hourly turn limit. The kernels' network gets a
/24 no other podman network holds, so two fleets on one machine never meet.

Every container, network and volume compose makes carries the label
`com.docker.compose.project=<project>`, and every container the test process's pid
(`tests/deploy/leftovers.py`'s `OWNER`, so a later run removes a fleet whose test died).
`down()` runs `docker-compose down -v`, then removes whatever that left (anonymous volumes
and processes included: `tests/deploy/leftovers.py`) and says what it was.
"""

from __future__ import annotations

import ipaddress
import json
import os
import random
import secrets
import shutil
import subprocess
from pathlib import Path

import yaml

from tests.containers import BASE_IMAGE, missing_engine
from tests.deploy.fleet import ROOT, START_S, free_port, haproxy_status
from tests.deploy.leftovers import OWNER, Footprint
from tests.waiting import wait_for

COMPOSE = ROOT / "deploy" / "compose.yaml"
SERVICES = {"a": "app1", "b": "app2"}  # HAProxy's server names (the cookie's values)
# Tags of their own, so a test never replaces the images a person built from the README.
POSTGRES_IMAGE = "localhost/smolui-postgres:test"
HAPROXY_IMAGE = "localhost/smolui-haproxy:test"
SCRIPT_IN_CONTAINER = "/fleet/replies.json"
TURNS_PER_HOUR = 3


def missing_compose() -> str | None:
    """Why the compose fleet cannot run here (a message for `pytest.skip`), or None."""
    reason = missing_engine()
    if reason:
        return reason
    if shutil.which("docker-compose") is None:
        return "docker-compose is not installed: bash scripts/install.sh --tests"
    return None


class ComposeFleet:
    """deploy/compose.yaml as one compose project: two replicas, PostgreSQL and HAProxy.

    Args:
        folder: Where the override file and the logs go.
        docker_host: podman's Docker API, e.g. "unix:///tmp/.../docker.sock".
        app_image: The app image both replicas run (`tests.containers.app_image()`).
        script: A scripted model's replies (JSON) both replicas answer from.
        turns_per_hour: Each user's hourly turns (`SMOLUI_TURNS_PER_HOUR`).
    """

    def __init__(
        self,
        folder: Path,
        docker_host: str,
        app_image: str,
        script: Path,
        turns_per_hour: int = TURNS_PER_HOUR,
    ):
        self.project = f"smolui-fleet-test-{secrets.token_hex(4)}"
        self.footprint = Footprint(self.project)
        self.folder = folder
        self.port, self.stats_port, self.database_port = free_port(), free_port(), free_port()
        self.password = secrets.token_hex(16)
        self.override = folder / "compose.test.yaml"
        self.turns_per_hour = turns_per_hour
        self.override.write_text(yaml.safe_dump(self._override(script)), encoding="utf-8")
        script.chmod(0o644)  # the replicas run as uid 1000
        self.environment = {
            **{
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("SMOLUI_", "DOCKER_", "COMPOSE_"))
            },
            "DOCKER_HOST": docker_host,
            # compose's default of 60 s per API call is too short on a busy machine, where
            # podman's answers wait behind other builds and containers.
            "COMPOSE_HTTP_TIMEOUT": "600",
            "BASE_IMAGE": BASE_IMAGE,
            "SMOLUI_IMAGE": app_image,
            "POSTGRES_IMAGE": POSTGRES_IMAGE,
            "HAPROXY_IMAGE": HAPROXY_IMAGE,
            "SMOLUI_DB_PASSWORD": self.password,
            "SMOLUI_KERNEL_TOKEN": secrets.token_hex(16),
            "SMOLUI_KERNELS_NET": free_kernels_net(),
            "SMOLUI_MODEL": f"scripted:{SCRIPT_IN_CONTAINER}",
            "SMOLUI_PORT": f"127.0.0.1:{self.port}",
        }
        self.log = folder / "compose.log"

    def _override(self, script: Path) -> dict:
        owner = {OWNER: str(os.getpid())}
        app = {
            "environment": {"SMOLUI_TURNS_PER_HOUR": str(self.turns_per_hour)},
            "volumes": [f"{script}:{SCRIPT_IN_CONTAINER}:ro"],
            "labels": owner,
        }
        return {
            "services": {
                "app1": app,
                "app2": app,
                "postgres": {"ports": [f"127.0.0.1:{self.database_port}:5432"], "labels": owner},
                "haproxy": {
                    "environment": {"SMOLUI_STATS": ":8404"},
                    "ports": [f"127.0.0.1:{self.stats_port}:8404"],
                    "labels": owner,
                },
                "kernels": {"labels": owner},
            }
        }

    @property
    def url(self) -> str:
        """The balancer's address."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def database_url(self) -> str:
        """The fleet's PostgreSQL, as the test reaches it through its published port."""
        return f"postgresql+psycopg://smolui:{self.password}@127.0.0.1:{self.database_port}/smolui"

    @property
    def label(self) -> str:
        """The label compose puts on everything of this project."""
        return f"com.docker.compose.project={self.project}"

    def _command(self, *args: str) -> list[str]:
        # An empty env file: a deploy/.env someone keeps in their checkout must not leak in.
        empty = self.folder / "empty.env"
        empty.touch()
        return ["docker-compose", "--project-name", self.project, "--env-file", str(empty),
                "-f", str(COMPOSE), "-f", str(self.override), *args]  # fmt: skip

    def compose(self, *args: str, timeout: float = 900) -> str:
        """Run one docker-compose command on this project; its standard output.

        Raises:
            RuntimeError: It failed (with the end of its output).
        """
        done = subprocess.run(self._command(*args), env=self.environment, capture_output=True,
                              text=True, timeout=timeout, cwd=ROOT)  # fmt: skip
        with self.log.open("a") as log:
            log.write(
                f"$ docker-compose -p {self.project} {' '.join(args)}\n{done.stdout}{done.stderr}\n"
            )
        if done.returncode != 0:
            raise RuntimeError(f"docker-compose {' '.join(args)} failed: {done.stderr[-3000:]}")
        return done.stdout

    def build_images(self) -> None:
        """Build PostgreSQL's and HAProxy's images (podman's layer cache: seconds after the
        first time). The app image is built by `app_image()` with this machine's CA bundle."""
        self.compose("build", "postgres", "haproxy", timeout=1800)

    def up(self) -> ComposeFleet:
        """`docker-compose up -d`, then wait until HAProxy sees both replicas ready."""
        with self.log.open("ab") as log:
            starting = subprocess.Popen(self._command("up", "-d", "--no-build"),
                                        env=self.environment, stdout=log, stderr=log,
                                        cwd=ROOT)  # fmt: skip
            try:
                wait_for(lambda: self._up_finished(starting),
                         f"docker-compose up never finished (log: {self.log})",
                         timeout=START_S, poll=1.0)  # fmt: skip
            finally:
                if starting.poll() is None:
                    starting.kill()
                    starting.wait(timeout=30)
        self.footprint.record()
        if starting.returncode != 0:
            raise RuntimeError(f"docker-compose up failed: {self.log.read_text()[-3000:]}")
        for name in SERVICES:
            self.wait_status(name, "UP", START_S)
        return self

    def _up_finished(self, starting: subprocess.Popen) -> bool:
        """True once `up` has exited. Until then, PostgreSQL's health check is run by hand:
        podman schedules health checks with systemd timers, and where there is no systemd
        (as here) nothing runs them, so compose would wait for a healthy database forever.
        Docker Engine runs them itself."""
        if starting.poll() is not None:
            return True
        for container in self.containers("postgres"):
            subprocess.run(["podman", "healthcheck", "run", container],
                           capture_output=True, timeout=60)  # fmt: skip
        return False

    def logs(self, *services: str, tail: int = 80) -> str:
        """The last lines each service wrote, and how often it restarted (what a failure
        message shows: a replica that restarted forgets its place in the script)."""
        out = []
        for service in services:
            for container in self.containers(service):
                shown = subprocess.run(["podman", "inspect", "--format", "{{.RestartCount}}",
                                        container], capture_output=True, text=True, timeout=120)  # fmt: skip
                out.append(f"--- {service} {container[:12]}: restarts {shown.stdout.strip()}")
            out.append(self.compose("logs", "--no-color", f"--tail={tail}", service))
        return "\n".join(out)

    def containers(self, service: str) -> list[str]:
        """The ids of the service's containers (none before it is created). Asked of podman
        by compose's labels: no API round trip while `up` keeps the service busy."""
        listed = subprocess.run(["podman", "ps", "--all", "--quiet", "--filter",
                                 f"label={self.label}", "--filter",
                                 f"label=com.docker.compose.service={service}"],
                                capture_output=True, text=True, check=True, timeout=120)  # fmt: skip
        return listed.stdout.split()

    def status(self) -> dict[str, str]:
        """Each replica's state as HAProxy sees it ("UP", "DOWN", ...; {} if unreachable)."""
        return haproxy_status(f"http://127.0.0.1:{self.stats_port}/stats;csv")

    def wait_status(self, name: str, state: str, timeout: float = 120.0) -> None:
        """Wait until HAProxy reports replica `name` ("a" or "b") in `state`."""
        wait_for(lambda: self.status().get(name, "").startswith(state),
                 f"HAProxy never saw replica {name} {state}: {self.status()} "
                 f"(logs: docker-compose -p {self.project} logs)", timeout=timeout,
                 poll=0.5)  # fmt: skip

    def stop(self, name: str) -> None:
        """Stop replica `name` gracefully (`docker-compose stop`), as a drain or update does."""
        self.compose("stop", SERVICES[name])

    def kill(self, name: str) -> None:
        """`kill -9` replica `name`'s container, as a crash or an OOM kill would end it."""
        for container in self.containers(SERVICES[name]):
            subprocess.run(["podman", "kill", "--signal", "KILL", container],
                           check=True, capture_output=True, timeout=60)  # fmt: skip

    def addresses(self, service: str) -> dict[str, str]:
        """The service's container's address on each of its networks, by compose's network
        name ("default", "kernels")."""
        networks = self._inspect(service)["NetworkSettings"]["Networks"]
        return {name.removeprefix(f"{self.project}_"): settings["IPAddress"]
                for name, settings in networks.items()}  # fmt: skip

    def host_address(self) -> str:
        """This machine's address on the fleet's default network (its bridge's gateway)."""
        networks = self._inspect("postgres")["NetworkSettings"]["Networks"]
        return networks[f"{self.project}_default"]["Gateway"]

    def hostname(self, service: str) -> str:
        """The host name the service's container gives its processes."""
        return self._inspect(service)["Config"]["Hostname"]

    def limits(self, service: str) -> dict[str, int]:
        """The memory (bytes) and pids limits podman gave the service's container."""
        settings = self._inspect(service)["HostConfig"]
        return {"memory": settings["Memory"], "pids": settings["PidsLimit"]}

    def _inspect(self, service: str) -> dict:
        (container,) = self.containers(service)
        shown = subprocess.run(["podman", "inspect", container], capture_output=True,
                               text=True, check=True, timeout=120)  # fmt: skip
        return json.loads(shown.stdout)[0]

    def put(self, service: str, path: str, text: str) -> None:
        """Write `text` to `path` inside the service's container, as its own user."""
        (container,) = self.containers(service)
        subprocess.run(["podman", "exec", "-i", container, "sh", "-c", f"cat > {path}"],
                       input=text, text=True, check=True, capture_output=True,
                       timeout=120)  # fmt: skip

    def add_key(self, user: str) -> str:
        """An API key for `user`, made inside a replica as the README says: through the
        balancer the app sees no loopback caller, so `/v1` needs a key."""
        said = self.compose("exec", "-T", SERVICES["a"], "python", "-m", "smolui.auth.keys",
                            "add", user, timeout=300)  # fmt: skip
        return said.strip().splitlines()[-1]

    def down(self) -> dict[str, list[str]]:
        """`docker-compose down -v --remove-orphans`, then whatever it left is removed too
        (also when it fails or times out); what `down` alone left, by kind ({} if nothing).

        Raises:
            RuntimeError: `docker-compose down` failed (what it left was removed all the same).
        """
        self.footprint.record()  # the ids and anonymous volumes to look for once they are gone
        try:
            self.compose("down", "--volumes", "--remove-orphans", "--timeout", "10", timeout=600)
            left = self.footprint.settled()
        finally:
            swept = self.footprint.leftovers()
            self.footprint.sweep()
            with self.log.open("a") as log:
                log.write(f"after docker-compose down, removed by the test: {swept or 'nothing'}\n")
        return left

    def leftovers(self) -> dict[str, list[str]]:
        """What of this project is still here: containers, networks, volumes (anonymous ones
        too) and processes naming it (conmon, podman's cleanup, compose)."""
        return self.footprint.leftovers()


def free_kernels_net() -> str:
    """The first three numbers of a /24 in 10.100-199.x that no podman network holds now,
    for `SMOLUI_KERNELS_NET` (the compose file's default, 10.86.86, would be shared by
    every test fleet on the machine)."""
    listed = subprocess.run(["podman", "network", "ls", "--format",
                             "{{range .Subnets}}{{.Subnet}} {{end}}"],
                            capture_output=True, text=True, check=True, timeout=120)  # fmt: skip
    taken = [ipaddress.ip_network(net) for net in listed.stdout.split()]
    while True:
        prefix = f"10.{random.randint(100, 199)}.{random.randint(0, 255)}"
        if not any(ipaddress.ip_network(f"{prefix}.0/24").overlaps(net) for net in taken):
            return prefix
