"""A fleet on loopback, without containers: app replicas (`python app.py`) on one PostgreSQL,
with HAProxy in front running the same `deploy/haproxy.cfg` as `deploy/compose.yaml`.

Each replica is its own process so a test can `kill -9` it. HAProxy's stats page (CSV) tells
the test when a replica is in or out of rotation, so tests wait on that, not on time.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
COOKIE = "SMOLUI_REPLICA"  # as deploy/haproxy.cfg names it
START_S = 180.0  # an app start on a busy 2-core machine (gradio, the store's migrations)


def free_port() -> int:
    """A TCP port free on loopback right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def missing_haproxy() -> str | None:
    """Why HAProxy cannot run here (a message for `pytest.skip`), or None."""
    if shutil.which("haproxy") is None and not Path("/usr/sbin/haproxy").exists():
        return "haproxy is not installed: bash scripts/install.sh --tests"
    return None


def _haproxy() -> str:
    return shutil.which("haproxy") or "/usr/sbin/haproxy"


@dataclass
class Replica:
    """One app process: `python app.py` with its flags, restartable on the same port.

    Args:
        name: Its server name in `deploy/haproxy.cfg` ("a" or "b"), also its cookie value.
        port: Its loopback port.
        flags: `app.py`'s flags besides the address.
        log: Where its output goes (read when a test fails).
    """

    name: str
    port: int
    flags: Sequence[str]
    log: Path
    process: subprocess.Popen | None = field(default=None, repr=False)

    def start(self) -> None:
        command = [sys.executable, "app.py", "--host", "127.0.0.1", "--port", str(self.port),
                   *self.flags]  # fmt: skip
        env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1"}
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)

    def kill(self) -> None:
        """`kill -9`, as a crash or an OOM kill would end it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


class Fleet:
    """Two replicas and HAProxy; `url` is the balancer's.

    Args:
        folder: Where logs and the shared data folder go.
        database_url: The PostgreSQL both replicas use.
        model: The model spec both replicas run (`--model`).
    """

    def __init__(self, folder: Path, database_url: str, model: str):
        data = folder / "data"  # shared, as the compose file's volume: uploads live there
        data.mkdir(parents=True, exist_ok=True)
        flags = ["--model", model, "--executor", "local", "--data-dir", str(data),
                 "--database-url", database_url, "--no-find-local-servers"]  # fmt: skip
        self.replicas = {name: Replica(name, free_port(), flags, folder / f"app-{name}.log")
                         for name in ("a", "b")}  # fmt: skip
        self.port, self.stats_port = free_port(), free_port()
        self.folder, self.database_url = folder, database_url
        self.haproxy: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Fleet:
        for replica in self.replicas.values():
            replica.start()
        env = {**os.environ, "SMOLUI_LISTEN": f"127.0.0.1:{self.port}",
               "SMOLUI_REPLICA_A": self.replicas["a"].address,
               "SMOLUI_REPLICA_B": self.replicas["b"].address,
               "SMOLUI_STATS": f"127.0.0.1:{self.stats_port}"}  # fmt: skip
        with (self.folder / "haproxy.log").open("ab") as out:
            self.haproxy = subprocess.Popen([_haproxy(), "-db", "-f", str(HAPROXY_CFG)],
                                            env=env, stdout=out, stderr=out)  # fmt: skip
        for name in self.replicas:
            self.wait_status(name, "UP", START_S)
        return self

    def status(self) -> dict[str, str]:
        """Each replica's state as HAProxy sees it ("UP", "DOWN", ...; {} if unreachable)."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.stats_port}/stats;csv") as r:
                text = r.read().decode("utf-8")
        except OSError:
            return {}
        rows = csv.DictReader(io.StringIO(text.lstrip("# ")))
        return {row["svname"]: row["status"] for row in rows if row["pxname"] == "replicas"}

    def wait_status(self, name: str, state: str, timeout: float = 60.0) -> None:
        """Wait until HAProxy reports replica `name` in `state` (its checks of /readyz)."""
        wait_for(lambda: self.status().get(name, "").startswith(state),
                 f"HAProxy never saw replica {name} {state}: {self.status()} "
                 f"(logs in {self.folder})", timeout=timeout)  # fmt: skip

    def stop(self) -> None:
        """End every process this fleet started (by its pid)."""
        for replica in self.replicas.values():
            replica.kill()
        if self.haproxy is not None and self.haproxy.poll() is None:
            self.haproxy.terminate()
            self.haproxy.wait(timeout=30)
