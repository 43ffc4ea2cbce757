"""What a compose project leaves on this machine, found and removed: its containers, networks
and volumes (labelled, and the anonymous volumes its containers mounted), and the processes
that still name it (a container's `conmon`, podman's `container cleanup`, a compose client).

A `Footprint` is told what to look for while the project runs (`record`): compose's label is
on containers, networks and named volumes, but not on an anonymous volume (the app image
declares `VOLUME` for its data folder, and the gateway mounts nothing there), and once a
container is gone podman no longer says what it mounted, so the ids and volume names must be
known before `down`. `sweep` removes what is left, ending processes by pid.

One kind of process is podman's by design, not a leak of `down`: the monitor of an exec session
started through the Docker API (`docker-compose exec`, as the fleet makes its API keys) waits
`exit_command_delay` (300 s by default, containers.conf) after the command ended, for a client
to read its exit code, before it runs its clean-up and exits; it outlives its container's
removal too. `settled` leaves those out of what `down` left; `sweep` ends them.

`sweep_orphans` removes the fleets of test processes that died without tearing down (a run
killed by hand or by a timeout), found by the `OWNER` label every test fleet's container has.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.deploy.app_container import podman
from tests.waiting import wait_for

OWNER = "smolui.test.owner"  # the pid of the test process that brought the fleet up
PROJECT = "com.docker.compose.project"
SETTLE_S = 120.0  # podman's cleanup processes and conmons end after `down` returns
EXEC_MONITOR = "--exec-process-spec"  # on the command line of an exec session's conmon
EXEC_NOTE = " (an exec session's monitor)"


@dataclass
class Footprint:
    """One compose project's containers, volumes and processes on this machine.

    Args:
        project: The compose project's name (unique: a test's processes are found by it).
    """

    project: str
    containers: dict[str, str] = field(default_factory=dict)  # id -> name, ever seen
    volumes: set[str] = field(default_factory=set)  # every volume its containers mounted

    @property
    def label(self) -> str:
        return f"{PROJECT}={self.project}"

    def record(self) -> None:
        """Note the project's containers as they are now, and the volumes they mount."""
        ids = self._labelled("ps", "--all", "--quiet")
        if not ids:
            return
        shown = json.loads(podman("container", "inspect", *ids, check=False) or "[]")
        for container in shown:
            self.containers[container["Id"]] = container["Name"]
            self.volumes |= {mount["Name"] for mount in container.get("Mounts", [])
                             if mount.get("Type") == "volume"}  # fmt: skip

    def leftovers(self) -> dict[str, list[str]]:
        """What of the project is still here, by kind (empty when nothing is)."""
        containers = set(self._labelled("ps", "--all", "--format", "{{.Names}}"))
        containers |= {name for cid, name in self.containers.items() if _exists("container", cid)}
        volumes = set(self._labelled("volume", "ls", "--format", "{{.Name}}"))
        volumes |= {name for name in self.volumes if _exists("volume", name)}
        found = {
            "containers": sorted(containers),
            "networks": sorted(self._labelled("network", "ls", "--format", "{{.Name}}")),
            "volumes": sorted(volumes),
            "processes": [f"{pid} {_short(command)}" for pid, command in self.processes().items()],
        }
        return {kind: items for kind, items in found.items() if items}

    def settled(self, timeout: float = SETTLE_S) -> dict[str, list[str]]:
        """What `down` left: `leftovers()` once only exec sessions' monitors (above) remain,
        or what else is still there after `timeout` seconds (a container's monitor and
        podman's cleanup process end a moment after the container goes)."""
        try:
            wait_for(lambda: not self._left_by_down(), "nothing left", timeout=timeout, poll=0.5)
        except AssertionError:
            return self._left_by_down()
        return {}

    def _left_by_down(self) -> dict[str, list[str]]:
        found = self.leftovers()
        processes = [line for line in found.pop("processes", []) if not line.endswith(EXEC_NOTE)]
        return {**found, "processes": processes} if processes else found

    def processes(self) -> dict[int, str]:
        """Processes whose command line names the project or one of its containers."""
        marks = [self.project, *self.containers]
        return {pid: command for pid, command in _commands().items()
                if any(mark in command for mark in marks)}  # fmt: skip

    def sweep(self) -> None:
        """Remove whatever of the project is left: containers (with their anonymous volumes),
        networks, volumes, then end its processes, by pid."""
        self.record()
        containers = sorted(set(self._labelled("ps", "--all", "--quiet")) | set(self.containers))
        if containers:
            podman("rm", "--force", "--volumes", "--ignore", "--time", "10", *containers,
                   check=False)  # fmt: skip
        networks = self._labelled("network", "ls", "--format", "{{.Name}}")
        if networks:
            podman("network", "rm", "--force", *networks, check=False)
        volumes = sorted(
            set(self._labelled("volume", "ls", "--format", "{{.Name}}")) | self.volumes
        )
        if volumes:
            podman("volume", "rm", "--force", *volumes, check=False)
        _end(self.processes())

    def _labelled(self, *command: str) -> list[str]:
        return podman(*command, "--filter", f"label={self.label}").split()


def sweep_orphans() -> list[str]:
    """Remove the test fleets whose test process is gone; the projects removed."""
    listed = podman("ps", "--all", "--filter", f"label={OWNER}", "--format", "json")
    owners = {c["Labels"][PROJECT]: c["Labels"][OWNER] for c in json.loads(listed or "[]")
              if PROJECT in c.get("Labels", {})}  # fmt: skip
    orphans = sorted(project for project, pid in owners.items()
                     if not (pid.isdigit() and Path(f"/proc/{pid}").exists()))  # fmt: skip
    for project in orphans:
        Footprint(project).sweep()
    return orphans


def _short(command: str) -> str:
    """A command line for a message: conmon's runs to kilobytes of paths."""
    return command[:160] + (EXEC_NOTE if EXEC_MONITOR in command else "")


def _exists(kind: str, name: str) -> bool:
    found = subprocess.run(["podman", kind, "exists", name], capture_output=True, timeout=120)
    return found.returncode == 0


def _commands() -> dict[int, str]:
    """Every process's command line but this one's, by pid."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # it ended while we looked
            continue
        if command:
            found[int(entry.name)] = command.strip()
    return found


def _end(processes: dict[int, str]) -> None:
    """SIGTERM; SIGKILL for those still there after a generous wait."""
    for pid in processes:
        _signal(pid, signal.SIGTERM)
    try:
        wait_for(lambda: not any(_alive(pid) for pid in processes), "processes ended",
                 timeout=30, poll=0.2)  # fmt: skip
    except AssertionError:
        for pid in processes:
            _signal(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"  # a zombie has ended; its parent reaps it


def _signal(pid: int, signum: signal.Signals) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass
