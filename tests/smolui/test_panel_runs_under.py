"""The side panel's plain sentence on whom a visitor's code runs as and what it lacks."""

from __future__ import annotations

from smolui.render.panel import runs_under

# Reports as the sandbox gave them in the app's container (tests/deploy/container_isolation.py).
LAYERS = {"process": True, "rlimits": True, "landlock": True, "seccomp": True}
SPACE_UNDER_DOCKER = {
    **LAYERS,
    "namespaces": False,
    "pid_namespace": False,
    "missing": ["namespaces"],
}
ROOT_UNDER_PODMAN = {
    **LAYERS,
    "namespaces": True,
    "own_uid": False,
    "pid_namespace": False,
    "missing": ["own_uid"],
}
ROOT_ON_A_HOST = {
    **LAYERS,
    "namespaces": True,
    "own_uid": True,
    "pid_namespace": True,
    "missing": [],
}


def test_a_space_under_dockers_profile_is_told_what_it_lacks_and_where_to_read_more():
    text = runs_under(SPACE_UNDER_DOCKER)
    assert text.startswith("Your code runs as the app's user, with no network, no other process")
    assert "Not here: own namespaces, own PID namespace" in text
    assert '"Isolation in a container"' in text


def test_root_in_a_container_says_root_without_capabilities():
    text = runs_under(ROOT_UNDER_PODMAN)
    assert text.startswith("Your code runs as root without capabilities")
    assert "Not here: a uid of its own, own PID namespace" in text


def test_every_layer_there_names_nothing_missing():
    text = runs_under(ROOT_ON_A_HOST)
    assert text.startswith("Your code runs as a user of its own") and "Not here" not in text


def test_no_sentence_before_a_worker_starts_or_for_other_executors():
    assert runs_under({"process": True, "started": False}) == ""
    assert runs_under({"remote": True, "level": "remote Jupyter kernel"}) == ""
    assert runs_under({"process": False}) == ""
    without_seccomp = runs_under({**SPACE_UNDER_DOCKER, "seccomp": False})
    assert "no network" not in without_seccomp  # claimed only where both layers hold
