"""The leftovers check the compose fleet's teardown relies on (tests/deploy/leftovers.py), on
real podman: it finds a project's container, the anonymous volume that outlives it, its
`conmon` and a stray process naming the project, and `sweep` removes all of them; an exec
session made through the Docker API (as `docker-compose exec` makes one) keeps its monitor
for podman's exit delay after its container is gone, which `settled` does not count as left
by `down` and `sweep` ends.

One small Debian container stands in for a compose service: it carries compose's project
label and mounts an anonymous volume, as the fleet's gateway does (the app image's `VOLUME`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
from collections.abc import Iterator

import pytest

from tests.containers import BASE_IMAGE, ensure_base_image, missing_engine, podman_service  # noqa: F401
from tests.deploy.app_container import podman
from tests.deploy.leftovers import EXEC_NOTE, OWNER, PROJECT, Footprint, sweep_orphans
from tests.waiting import wait_for

pytestmark = pytest.mark.slow


@pytest.fixture
def footprint() -> Iterator[Footprint]:
    reason = missing_engine()
    if reason:
        pytest.skip(reason)
    ensure_base_image()
    made = Footprint(f"smolui-leftovers-test-{secrets.token_hex(4)}")
    yield made
    made.sweep()  # whatever a failing test left


def start_service(footprint: Footprint, *labels: str) -> str:
    """A running container labelled as a service of the footprint's project; its id."""
    flags = [item for label in (f"{PROJECT}={footprint.project}", *labels)
             for item in ("--label", label)]  # fmt: skip
    return podman("run", "--detach", "--name", f"{footprint.project}_app1_1", *flags,
                  "--volume", "/data", BASE_IMAGE, "sleep", "infinity").strip()  # fmt: skip


def test_what_a_removal_leaves_is_found_and_swept(footprint):
    container = start_service(footprint)
    stray = subprocess.Popen(["sh", "-c", f"sleep infinity # {footprint.project}"])
    footprint.record()
    (volume,) = footprint.volumes  # anonymous: no label of the project's on it
    found = footprint.leftovers()
    assert found["containers"] == [f"{footprint.project}_app1_1"]
    assert found["volumes"] == [volume]
    monitors = [line for line in found["processes"] if "conmon" in line and container in line]
    assert len(monitors) == 1, found["processes"]
    assert any(line.startswith(f"{stray.pid} ") for line in found["processes"])

    podman("rm", "--force", "--time", "0", container)  # as a `down` without -v removes it
    wait_for(lambda: "containers" not in footprint.leftovers(), "the container gone")
    assert footprint.leftovers()["volumes"] == [volume]  # the anonymous volume outlives it

    footprint.sweep()
    assert footprint.leftovers() == {}
    assert stray.wait(timeout=60) != 0  # ended by the sweep, by its pid


def test_a_fleet_whose_test_process_died_is_swept_and_a_live_ones_is_not(footprint):
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no longer runs
    start_service(footprint, f"{OWNER}={dead.pid}")
    live = Footprint(f"smolui-leftovers-test-{secrets.token_hex(4)}")
    try:
        start_service(live, f"{OWNER}={os.getpid()}")
        swept = sweep_orphans()
        assert footprint.project in swept and live.project not in swept
        assert footprint.leftovers() == {}
        assert "containers" in live.leftovers()
    finally:
        live.sweep()
    assert live.leftovers() == {}


def test_an_api_exec_sessions_monitor_outlives_its_container_and_is_ended(
    footprint,
    podman_service,  # noqa: F811
):
    import docker

    container = start_service(footprint)
    footprint.record()
    with contextlib.closing(docker.DockerClient(base_url=podman_service.url)) as client:
        ran = client.containers.get(container).exec_run(["true"])
    assert ran.exit_code == 0
    podman("rm", "--force", "--volumes", "--time", "0", container)  # as `down -v` removes it
    assert footprint.settled() == {}  # nothing `down` is to blame for
    monitors = footprint.leftovers()["processes"]
    assert monitors and all(line.endswith(EXEC_NOTE) for line in monitors), monitors
    footprint.sweep()
    assert footprint.leftovers() == {}
