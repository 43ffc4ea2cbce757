"""What isolation the sandbox gets inside the app's container, setting by setting.

Each `Setting` is a set of `podman run` flags (the same flags `docker run` takes): podman's
default seccomp profile or Docker's (`deploy/seccomp/docker-default.json`), as root or as
uid 1000, and the flags that give back what those lack. `measure` runs the app image once
per setting with `tests.deploy.isolation_probe` inside (the sandbox's isolation report and
one real code run) and `table_row` turns the result into the README's table row, so the
test can hold the README to what was measured and the bench can print the table.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.deploy.isolation_probe import OWN_WORK

ROOT = Path(__file__).resolve().parents[2]
SECCOMP = ROOT / "deploy" / "seccomp"
DOCKER_PROFILE = SECCOMP / "docker-default.json"
SMOLUI_PROFILE = SECCOMP / "docker-default-unshare.json"
# One label per test process: another suite on the machine may run its probes meanwhile.
LABEL = f"smolui.test=container-isolation-{os.getpid()}"
PREFIX = "iso-"  # every container made here is named so
# An image tag of its own: another checkout's build (a CI run) retags the shared test tag,
# and its image may lack the probe or hold other sandbox code.
IMAGE = "localhost/smolui-app:isolation"

# The report's layers as the table names them, in the order a worker takes them.
LAYERS = (
    ("rlimits", "rlimits"),
    ("own_uid", "own uid"),
    ("namespaces", "user/IPC/net namespaces"),
    ("threads_limit", "thread limit"),
    ("pid_namespace", "PID namespace"),
    ("capabilities_dropped", "no capabilities"),
    ("landlock", "Landlock"),
    ("seccomp", "seccomp"),
)
TABLE_HEADER = (
    "| setting | flags (`podman run` / `docker run`) | app runs as | code runs as "
    "| layers active | layers not active | attacks refused |\n|---|---|---|---|---|---|---|"
)


@dataclass(frozen=True)
class Setting:
    """One way to run the app's container.

    Args:
        name: What it stands for, e.g. "Docker's default profile".
        flags: The `podman run` flags; a profile is named by its file in deploy/seccomp/.
    """

    name: str
    flags: tuple[str, ...]

    def command_flags(self) -> list[str]:
        """The flags with each profile's file name made a path on this machine."""
        profiles = {path.name: str(path) for path in (DOCKER_PROFILE, SMOLUI_PROFILE)}
        return [_with_profile(flag, profiles) for flag in self.flags]


def _with_profile(flag: str, profiles: dict[str, str]) -> str:
    key, _, value = flag.partition("seccomp=")
    return f"{key}seccomp={profiles[value]}" if value in profiles else flag


_DOCKER = ("--security-opt", "seccomp=docker-default.json")
SETTINGS = (
    Setting("podman's default profile, as a Space runs it", ("--user", "1000")),
    Setting("podman's default profile, root", ("--user", "0")),
    Setting("Docker's default profile, as a Space runs it", ("--user", "1000", *_DOCKER)),
    Setting("Docker's default profile, root", ("--user", "0", *_DOCKER)),
    Setting(
        "Docker's profile with `unshare` allowed",
        ("--user", "1000", "--security-opt", "seccomp=docker-default-unshare.json"),
    ),
    Setting(
        "no container seccomp profile", ("--user", "1000", "--security-opt", "seccomp=unconfined")
    ),
    Setting("root with CAP_SYS_ADMIN", ("--user", "0", "--cap-add", "SYS_ADMIN", *_DOCKER)),
)


def docker_profile_with_unshare() -> str:
    """Docker's default profile with `unshare` allowed to every process (the text of
    `deploy/seccomp/docker-default-unshare.json`): what the sandbox needs for its
    namespaces, and nothing else of what CAP_SYS_ADMIN would unlock."""
    profile = json.loads(DOCKER_PROFILE.read_text())
    allowed = profile["syscalls"][0]
    if allowed["action"] != "SCMP_ACT_ALLOW" or "args" in allowed or "includes" in allowed:
        raise ValueError(f"{DOCKER_PROFILE}: its first rule is no longer the plain allow-list")
    if "unshare" not in allowed["names"]:  # where it falls in the list's order
        allowed["names"].insert(allowed["names"].index("unlinkat") + 1, "unshare")
    return json.dumps(profile, indent="\t") + "\n"


def container_name(setting: Setting) -> str:
    """This process's container for `setting` (prefixed `iso-`, unique per setting)."""
    return f"{PREFIX}{os.getpid()}-{SETTINGS.index(setting)}"


def measure(image: str, setting: Setting, timeout: float = 600) -> dict[str, Any]:
    """Run the probe in a fresh container of `image` under `setting`; its JSON.

    The container is removed when the probe ends (`--rm`, its data volume with it).

    Args:
        image: The app image (`tests.containers.app_image()`).
        setting: The flags to run it with.
        timeout: Seconds the container may take.

    Raises:
        RuntimeError: The probe failed (with its output).
    """
    command = ["podman", "run", "--rm", "--no-healthcheck", "--name", container_name(setting),
               "--label", LABEL, *setting.command_flags(), image,
               "python", "-m", "tests.deploy.isolation_probe"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(
            f"{setting.name}: the probe failed ({done.returncode}): {done.stderr[-3000:]}"
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def remove_containers() -> None:
    """Remove this process's containers (a measurement cut short leaves one running), with
    the anonymous volume the image's `VOLUME` gave each (`--rm` would have removed it)."""
    for setting in SETTINGS:
        subprocess.run(["podman", "rm", "--force", "--volumes", "--time", "5",
                        container_name(setting)], capture_output=True)  # fmt: skip


def refused(result: dict[str, Any]) -> tuple[int, int]:
    """How many of the probe's attacks were refused, of how many."""
    attacks = {name: how for name, how in result["attempts"].items() if name != OWN_WORK}
    return sum(how != "allowed" for how in attacks.values()), len(attacks)


def table_row(setting: Setting, result: dict[str, Any]) -> str:
    """The README table's row for `setting`, from what `measure` found."""
    report = result["isolation"]
    root = result["app_uid"] == 0
    active = [name for key, name in LAYERS if report.get(key)]
    # An app that is not root has no uid to give away: not a layer it lacks.
    inactive = [name for key, name in LAYERS if not report.get(key) and (root or key != "own_uid")]
    runs_as = (
        "its own uid"
        if report.get("own_uid")
        else ("root, no capabilities" if root else "the app's uid")
    )
    flags = " ".join(setting.flags)
    app = "root" if root else f"uid {result['app_uid']}"
    done, out_of = refused(result)
    return (
        f"| {setting.name} | `{flags}` | {app} "
        f"| {runs_as} | {', '.join(active)} | {', '.join(inactive) or 'none'} "
        f"| {done} of {out_of} |"
    )
