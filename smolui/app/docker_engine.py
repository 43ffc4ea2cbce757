"""The app's side of `--executor docker`: the executor's arguments from the settings, and
a look at the engine at start, so an unreachable Docker (or podman) stops the app with the
fix instead of failing every code step later.
"""

from __future__ import annotations

from typing import Any

PODMAN_HINT = (
    "start Docker, or serve podman's Docker API (podman system service --time=0 "
    "unix:///run/podman/podman.sock) and set DOCKER_HOST=unix:///run/podman/podman.sock"
)


def docker_executor_kwargs(settings: Any) -> dict[str, Any]:
    """`DockerExecutor` arguments from the settings (only those given).

    Args:
        settings: A `smolui.app.settings.Settings`.
    """
    chosen: dict[str, Any] = {}
    if settings.docker_base_image:
        chosen["base_image"] = settings.docker_base_image
    if settings.docker_pip_cert:
        chosen["pip_cert"] = settings.docker_pip_cert
    return chosen


def docker_engine_problem(timeout: float = 10.0) -> str | None:
    """Why no Docker engine answers (DOCKER_HOST, else the default socket), or None.

    Args:
        timeout: Seconds to wait for the engine's answer.
    """
    try:
        import docker
    except ImportError:
        return "--executor docker needs the 'docker' package: pip install docker"
    import requests

    # docker.from_env reads DOCKER_HOST and asks the engine for its API version at once.
    where = docker.utils.kwargs_from_env().get("base_url") or "the default socket"
    try:
        client = docker.from_env(timeout=timeout)
    except (docker.errors.DockerException, requests.RequestException) as error:
        return f"--executor docker: no Docker engine answers at {where} ({error}); {PODMAN_HINT}"
    try:
        client.ping()
    except (docker.errors.DockerException, requests.RequestException) as error:
        return f"--executor docker: the Docker engine at {where} does not answer ({error}); {PODMAN_HINT}"
    finally:
        client.close()
    return None
