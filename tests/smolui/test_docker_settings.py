"""`--executor docker` in the app: the base image and pip CA settings reach the executor,
mistakes are refused at start, and an engine that does not answer stops the app with the fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.executors.remote.docker import DockerExecutor
from smolui.app.docker_engine import docker_engine_problem
from smolui.app.factory import AgentFactory
from smolui.app.settings import Settings, settings_from_args
from tests.containers import podman_service  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]


def test_flags_and_environment_set_the_kernel_images_base_and_ca(tmp_path):
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    argv = ["--executor", "docker", "--docker-base-image", "localhost/debian:bookworm",
            "--docker-pip-cert", str(ca)]  # fmt: skip
    settings = settings_from_args(argv, {})
    assert (settings.docker_base_image, settings.docker_pip_cert) == (
        "localhost/debian:bookworm",
        str(ca),
    )
    env = {"SMOLUI_EXECUTOR": "docker", "SMOLUI_DOCKER_BASE_IMAGE": "debian:12",
           "SMOLUI_DOCKER_PIP_CERT": str(ca)}  # fmt: skip
    from_env = settings_from_args([], env)
    assert (from_env.docker_base_image, from_env.docker_pip_cert) == ("debian:12", str(ca))


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--docker-base-image", "debian:12"], "--docker-base-image applies to --executor docker"),
        (["--executor", "docker", "--docker-pip-cert", "/no/such.crt"], "is not a file"),
    ],
)
def test_docker_settings_mistakes_are_refused(argv, problem, capsys):
    with pytest.raises(SystemExit):
        settings_from_args(argv, {})
    assert problem in capsys.readouterr().err


def test_the_factory_hands_the_settings_to_the_docker_executor(tmp_path):
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    settings = Settings(model="scripted:demo", executor="docker",
                        docker_base_image="localhost/debian:bookworm", docker_pip_cert=str(ca))  # fmt: skip
    agent = AgentFactory(settings, loader=None)(tmp_path / "uploads")
    try:
        executor = agent.executor
        assert isinstance(executor, DockerExecutor)  # no container yet: it starts with a step
        assert (executor.base_image, executor.pip_cert) == ("localhost/debian:bookworm", str(ca))
    finally:
        agent.close()


def test_an_engine_that_does_not_answer_stops_the_app_with_the_fix(tmp_path):
    env = {**os.environ, "DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock"}
    started = subprocess.run(
        [sys.executable, "app.py", "--executor", "docker", "--model", "scripted:demo",
         "--host", "203.0.113.1", "--data-dir", str(tmp_path / "data")],  # not bindable
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert started.returncode == 1
    assert f"no Docker engine answers at unix://{tmp_path}/no-engine.sock" in started.stderr
    assert "podman system service" in started.stderr and "DOCKER_HOST=" in started.stderr


@pytest.mark.slow
def test_a_served_engine_is_found(podman_service, monkeypatch):  # noqa: F811
    monkeypatch.setenv("DOCKER_HOST", podman_service.url)
    assert docker_engine_problem() is None
