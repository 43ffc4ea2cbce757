"""What isolation the sandbox gets inside the app's container: the README's table, measured.

Runs the app image (built from this checkout by `tests.containers.app_image()`, under a tag
of its own) once per setting of `tests/deploy/container_isolation.py` (podman's and Docker's
default seccomp profiles, root and uid 1000, and the flags that restore what those lack),
with the sandbox's isolation report and one real code run inside, and prints the table
(paste it into the README's "Isolation in a container"; tests/deploy/test_container_isolation.py
holds the README to it) and each setting's seconds from `podman run` to the probe's answer.

Run as root with podman (bash scripts/install.sh --tests): python bench/container_isolation.py
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", action="store_true", help="also print each report's notes")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.containers import app_image, missing_engine
    from tests.deploy.container_isolation import (
        IMAGE,
        SETTINGS,
        TABLE_HEADER,
        measure,
        remove_containers,
        table_row,
    )

    reason = missing_engine()
    if reason:
        sys.exit(f"container_isolation: {reason}")
    image = app_image(IMAGE)
    rows, notes = [], []
    try:
        for setting in SETTINGS:
            started = time.monotonic()
            result = measure(image, setting)
            took = time.monotonic() - started
            rows.append(table_row(setting, result))
            notes.append(f"{setting.name}: {took:.1f} s; {result['isolation'].get('notes')}")
    finally:
        remove_containers()
    print(TABLE_HEADER)
    print("\n".join(rows))
    print()
    for line in notes if args.notes else [line.split(";")[0] for line in notes]:
        print(line)


if __name__ == "__main__":
    main()
