"""The app image: build time (cached, and with --cold every layer again), image size, and a
container's cold start to /readyz (offline model loaded).

Run as root with podman (bash scripts/install.sh --tests): python bench/app_image.py [--cold]

The first build on a machine (a debootstrap base, then llama.cpp compiled) is the slow one;
it is not repeated here, since it needs podman's store and pip's build cache emptied. A
--cold build redoes every layer, but pip's cache mount still holds the compiled llama.cpp
wheel: it is what a change to requirements.txt costs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed_build(no_cache: bool) -> float:
    from tests.containers import APP_IMAGE, app_image_build_command, ensure_base_image

    ensure_base_image()
    started = time.monotonic()
    subprocess.run(app_image_build_command(APP_IMAGE, no_cache=no_cache), cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)  # fmt: skip
    return time.monotonic() - started


def image_size_mb(image: str) -> float:
    size = subprocess.run(["podman", "image", "inspect", "--format", "{{.Size}}", image],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(size.stdout.strip()) / 1e6


def cold_start_s(image: str) -> float:
    """Seconds from `podman run` to /readyz answering 200, on a fresh volume."""
    from tests.deploy.app_container import AppContainer
    from tests.e2e.harness import free_port

    app = AppContainer(image, free_port(), f"smolui-app-bench-{os.getpid()}", {})
    app.create_volume()
    try:
        started = time.monotonic()
        app.run().wait_ready()
        return time.monotonic() - started
    finally:
        app.remove()
        app.remove_volume()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="also rebuild every layer")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.containers import APP_IMAGE, missing_engine

    reason = missing_engine()
    if reason:
        sys.exit(f"app_image: {reason}")
    if args.cold:
        print(f"build, every layer again (pip cache kept): {timed_build(no_cache=True):7.1f} s")
    print(f"build, cached (nothing changed):             {timed_build(no_cache=False):7.1f} s")
    print(f"image size ({APP_IMAGE}):        {image_size_mb(APP_IMAGE):7.0f} MB")
    print(f"container start to /readyz (offline model):  {cold_start_s(APP_IMAGE):7.1f} s")


if __name__ == "__main__":
    main()
