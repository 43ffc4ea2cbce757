"""Run a command while every core is kept busy: how the suite is proven on a loaded machine.

    python scripts/under_load.py [--hogs N] -- python -m pytest

One spinning process per core (or N) at normal priority, stopped when the command ends; the
command's exit status is returned. `make test-load` runs the whole suite this way.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import time


def _spin() -> None:
    value = 0
    while True:  # pure CPU work, no sleeping: the scheduler shares the core with the tests
        value = (value * 1103515245 + 12345) & 0x7FFFFFFF


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=os.cpu_count() or 2, help="spinning processes")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    hogs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.hogs)]
    for hog in hogs:
        hog.start()
    started = time.monotonic()
    print(f"under_load: {len(hogs)} spinning processes beside: {' '.join(command)}", flush=True)
    try:
        status = subprocess.call(command)
    finally:
        for hog in hogs:
            hog.terminate()
        for hog in hogs:
            hog.join()
    print(f"under_load: exit {status} after {time.monotonic() - started:.0f} s", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
