"""Idle conversations' workers: what each live, idle sandbox worker costs in memory (PSS).

    python bench/idle_workers.py [--workers 8] [--no-template]

Starts `--workers` sandbox executors the way the app does for as many conversations (warmed
up ahead of the first step, then one small step that uses the data stack), leaves them
idle, and prints each worker's PSS (proportional set size, from /proc/PID/smaps_rollup:
a page shared by k processes counts 1/k to each), the first, the mean of the others and
the total. When workers are forked from a template process (see `sandbox.template`), the
template's own PSS is printed and counted in the total. Goal (issue 33): under 30 MB per
live conversation beyond the first; before the template, each took ~80 MB PSS. Reading
another user's smaps_rollup takes root (workers run under an id of their own).
Linux only.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.executors.sandbox import SandboxExecutor  # noqa: E402
from agents.executors.sandbox.template import TEMPLATES  # noqa: E402

STEP = (
    "import numpy as np\nimport pandas as pd\nimport matplotlib.pyplot as plt\n"
    "table = pd.DataFrame({'x': np.arange(10)})\nint(table.x.sum())"
)
MB = 1024 * 1024


def pss(pid: int, tree: bool = True) -> int:
    """The PSS of a process and its descendants, in bytes (0 once it is gone).

    Args:
        pid: The process at the top of the tree.
        tree: Count its descendants too (not for the template: they are the workers).
    """
    return _rollup(pid, ("Pss:",), tree)


def private(pid: int) -> int:
    """The memory only this process and its descendants hold (USS), in bytes: what one
    more idle conversation adds.

    Args:
        pid: The process at the top of the tree.
    """
    return _rollup(pid, ("Private_Clean:", "Private_Dirty:"), True)


def _rollup(pid: int, fields: tuple[str, ...], tree: bool) -> int:
    total = 0
    for member in _tree(pid) if tree else [pid]:
        try:
            text = Path(f"/proc/{member}/smaps_rollup").read_text()
        except OSError:
            continue
        total += sum(
            int(line.split()[1]) * 1024 for line in text.splitlines() if line.startswith(fields)
        )
    return total


def _tree(pid: int) -> list[int]:
    """`pid` and every process below it (read from /proc/PID/task/*/children)."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                queue += [int(c) for c in (task / "children").read_text().split()]
            except (OSError, ValueError):
                continue
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument(
        "--no-template", action="store_true", help="start each worker as its own interpreter"
    )
    args = parser.parse_args()
    if args.workers < 2:
        parser.error("--workers must be at least 2 (the first, then the others)")
    executors = [
        SandboxExecutor(
            additional_authorized_imports=["*"], fork_from_template=not args.no_template
        )
        for _ in range(args.workers)
    ]
    try:
        for executor in executors:
            executor.start()  # the app's warm-up, then the first step
            result = executor(STEP)
            if result.output != 45:
                raise SystemExit(f"the step failed: {result.logs}")
        figures = [pss(executor.worker_pid) for executor in executors]
        own = [private(executor.worker_pid) for executor in executors]
        template = sum(pss(pid, tree=False) for pid in TEMPLATES.pids())
        report(figures, own, template, executors[0].isolation.get("level", "?"))
    finally:
        for executor in executors:
            executor.close()
        TEMPLATES.close()


def report(figures: list[int], own: list[int], template: int, level: str) -> None:
    """Print the figures.

    Args:
        figures: Each worker's PSS, bytes, in start order.
        own: Each worker's private memory (USS), bytes.
        template: The template processes' PSS, bytes (0 without one).
        level: The isolation level the workers reported.
    """
    for number, (value, alone) in enumerate(zip(figures, own, strict=True), 1):
        print(f"worker {number}: {value / MB:7.1f} MB PSS, {alone / MB:5.1f} MB its own")
    others = statistics.mean(figures[1:])
    print(f"template:   {template / MB:7.1f} MB PSS")
    print(f"first (with the template): {(figures[0] + template) / MB:.1f} MB")
    print(f"mean of the others:        {others / MB:.1f} MB  (goal: < 30 MB)")
    print(f"total:                     {(sum(figures) + template) / MB:.1f} MB")
    print(f"one more idle worker adds: {statistics.mean(own[1:]) / MB:.1f} MB (its own memory)")
    print(f"isolation: {level}")


if __name__ == "__main__":
    main()
