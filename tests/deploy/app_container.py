"""The app image run the way a Docker Space runs it: uid 1000, port 7860, data on a volume.

Driven through the podman CLI (what a person deploying it types), not the Docker SDK. Every
container and volume carries `LABEL`, so a test can check that none is left behind.
"""

from __future__ import annotations

import os
import subprocess
import urllib.error
import urllib.request

from tests.waiting import wait_for

# One label per test process: another suite on the machine may run its app container meanwhile.
LABEL = f"smolui.test=app-image-{os.getpid()}"
DATA = "/home/user/app/data"


def podman(*args: str, check: bool = True, timeout: float = 120) -> str:
    """Run one podman command; its standard output. A failure raises with its output."""
    done = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise RuntimeError(f"podman {' '.join(args)} failed: {done.stderr.strip()[-2000:]}")
    return done.stdout.strip()


class AppContainer:
    """One app container on a named volume, published on 127.0.0.1:`port`.

    Args:
        image: The app image (`tests.containers.app_image()`).
        port: The host port for the container's 7860.
        volume: The named volume mounted on the data folder (created by `create_volume`).
        environment: Extra `-e` settings, e.g. {"SMOLUI_MAX_STEPS": "2"}.
    """

    def __init__(self, image: str, port: int, volume: str, environment: dict[str, str]):
        self.image, self.port, self.volume = image, port, volume
        self.environment = environment
        self.name = f"smolui-app-test-{os.getpid()}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def create_volume(self) -> None:
        podman("volume", "create", "--label", LABEL, self.volume)

    def run(self) -> AppContainer:
        """Start a fresh container (as uid 1000, as Spaces do) on the volume."""
        settings = [
            item for key, value in self.environment.items() for item in ("-e", f"{key}={value}")
        ]
        podman("run", "--detach", "--name", self.name, "--label", LABEL, "--user", "1000",
               "--publish", f"127.0.0.1:{self.port}:7860", "--volume", f"{self.volume}:{DATA}",
               *settings, self.image)  # fmt: skip
        return self

    def wait_ready(self, timeout: float = 600) -> None:
        """Wait until `/readyz` answers 200 (the store open, the model loaded)."""
        wait_for(self._ready, f"{self.name} answers /readyz", timeout=timeout, poll=0.5)

    def _ready(self) -> bool:
        state = podman("inspect", "--format", "{{.State.Status}}", self.name)
        if state != "running":
            raise RuntimeError(f"{self.name} is {state}: {self.logs()}")
        try:
            with urllib.request.urlopen(self.url + "readyz", timeout=5) as answer:
                return answer.status == 200
        except (urllib.error.URLError, OSError):  # 503 while loading, or not listening yet
            return False

    def logs(self) -> str:
        return podman("logs", "--tail", "40", self.name, check=False)[-4000:]

    def remove(self) -> None:
        """Stop and remove the container (its volume stays)."""
        podman("rm", "--force", "--time", "10", self.name, check=False)

    def remove_volume(self) -> None:
        podman("volume", "rm", "--force", self.volume, check=False)
