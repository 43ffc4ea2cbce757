"""What isolation a visitor's code gets inside the app's container, measured setting by setting.

The app image runs under podman's default seccomp profile and under Docker's (moby's
`default.json`, kept in deploy/seccomp/), as root and as uid 1000, and with the flags the
README gives to restore what those take away. In each, the sandbox's own isolation report
and one real code run that tries what the layers are there to stop: every attempt must be
refused, whatever layers are missing, and the README's table row must say what was measured.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.containers import app_image, engine_leftovers, missing_engine
from tests.deploy.container_isolation import (
    IMAGE,
    LABEL,
    ROOT,
    SETTINGS,
    SMOLUI_PROFILE,
    docker_profile_with_unshare,
    measure,
    refused,
    remove_containers,
    table_row,
)
from tests.deploy.isolation_probe import OWN_WORK

# The first build on a machine compiles llama.cpp; later runs reuse podman's layer cache.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]


@pytest.fixture(scope="module")
def image() -> Iterator[str]:
    reason = missing_engine()
    if reason:
        pytest.skip(reason)
    yield app_image(IMAGE)
    remove_containers()
    assert engine_leftovers(LABEL) == {}, "the test left containers behind"


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda setting: " ".join(setting.flags))
def test_the_readme_row_is_what_the_container_gives_and_every_attack_is_refused(image, setting):
    result = measure(image, setting)
    attempts = result["attempts"]
    assert attempts.pop(OWN_WORK) == "allowed", result  # the sandbox still does its work
    allowed = [name for name, how in attempts.items() if how == "allowed"]
    assert not allowed, f"{setting.name}: the code could {allowed}: {result}"
    assert refused(result) == (len(attempts), len(attempts))
    report = result["isolation"]
    assert report["landlock"] and report["seccomp"] and report["rlimits"], report
    row = table_row(setting, result)
    readme = (ROOT / "README.md").read_text()
    assert row in readme, f"README's isolation table lacks (or differs from) this row:\n{row}"


def test_the_profile_with_unshare_is_dockers_plus_unshare():
    assert SMOLUI_PROFILE.read_text() == docker_profile_with_unshare()
