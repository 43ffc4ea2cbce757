"""The Docker executor's kernel image: named after what it is built from, built when missing.

The tag is `smolui-kernel:<hash>` of `kernel.Dockerfile`, `kernel_serve.py` and the base
image, so an image built from other files or another base is never taken for this one,
and two executors with different bases do not rebuild each other's image.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError
from agents.executors.remote.gateway import GatewayError
from agents.executors.remote.provisioned import require_sdk

logger = logging.getLogger(__name__)

DOCKERFILE = Path(__file__).with_name("kernel.Dockerfile")
SERVER = Path(__file__).with_name("kernel_serve.py")
REPOSITORY = "smolui-kernel"
DEFAULT_BASE = "python:3.11-slim"
_CERT_IN_BUILD = "/tmp/build-ca/ca.crt"


def kernel_image_tag(base_image: str = DEFAULT_BASE) -> str:
    """The tag of the image built from this package's files on `base_image`.

    Args:
        base_image: The image the kernel image starts from.
    """
    digest = hashlib.sha256()
    for part in (DOCKERFILE.read_bytes(), SERVER.read_bytes(), base_image.encode()):
        digest.update(hashlib.sha256(part).digest())
    return f"{REPOSITORY}:{digest.hexdigest()[:16]}"


def ensure_kernel_image(
    client: Any, image: str | None, base_image: str, pip_cert: str | None
) -> str:
    """The image to run: `image` if given (it must exist), else the kernel image, built
    from `kernel.Dockerfile` on `base_image` if the engine does not have it yet.

    Args:
        client: A `docker.DockerClient`.
        image: An image chosen by the user, or None.
        base_image: The base for a build.
        pip_cert: A CA bundle on this machine for pip during the build, or None.

    Raises:
        GatewayError: The chosen image is missing, or the build failed.
    """
    docker = require_sdk("docker", "docker", "docker")
    wanted = image or kernel_image_tag(base_image)
    try:
        client.images.get(wanted)
        return wanted
    except docker.errors.ImageNotFound:
        if image is not None:
            raise GatewayError(f"Docker image {image!r} not found; pull or build it.") from None
    started = time.monotonic()
    logger.info("building the kernel image %s on %s (once)", wanted, base_image)
    with tempfile.TemporaryDirectory(prefix="smolui-kernel-build-") as folder:
        context = Path(folder)
        shutil.copy(DOCKERFILE, context / "Dockerfile")
        shutil.copy(SERVER, context / "kernel_serve.py")
        (context / "build-ca").mkdir()
        args = {"BASE_IMAGE": base_image}
        if pip_cert:
            shutil.copy(pip_cert, context / "build-ca" / "ca.crt")
            args["PIP_CERT"] = _CERT_IN_BUILD
        try:
            client.images.build(path=folder, tag=wanted, buildargs=args, rm=True, pull=False)
        except docker.errors.BuildError as error:
            log = "".join(str(line.get("stream", "")) for line in error.build_log)[-2000:]
            raise GatewayError(
                f"Building the kernel image {wanted} failed: {error}\n{log}"
            ) from None
    logger.info("built %s in %.0f s", wanted, time.monotonic() - started)
    return wanted


def check_pip_cert(pip_cert: str | None) -> None:
    """Refuse a `pip_cert` that is not a readable file, at construction.

    Args:
        pip_cert: The path given, or None.
    """
    if pip_cert and not Path(pip_cert).is_file():
        raise AgentConfigError(f"pip_cert={pip_cert!r} is not a file (a CA bundle for pip).")
