"""How fast a Stop ends a sandbox step: the figures the executor tests no longer assert.

    python bench/stop_latency.py [--repeats 5]

Two cases, each timed from `interrupt()` to the step's error: code that lets the interrupt
through ("Interrupted", variables kept), and code that ignores SIGINT (the worker is killed
after `stop_grace`, so that figure is the grace plus the kill). Goals: the first well
under a second, the second within a second of the grace. Times are medians; the step
signals the host through a tool once it runs, so no figure includes the worker's start.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.errors import AgentExecutionError  # noqa: E402
from agents.executors.sandbox import SandboxExecutor  # noqa: E402

STEPS = {
    "cooperative loop": "import time\nrunning()\nwhile True:\n    time.sleep(0.01)",
    "ignores SIGINT": (
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nrunning()\n"
        "while True:\n    pass"
    ),
}
STOP_GRACE_S = 1.0


def stop_seconds(executor: SandboxExecutor, code: str) -> tuple[float, str]:
    """Seconds from `interrupt()` to the step's error, and the error's first words."""
    running = threading.Event()
    executor.send_tools({"running": lambda: running.set()})
    stopped_at: list[float] = []

    def stop() -> None:
        running.wait(60)
        stopped_at.append(time.perf_counter())
        executor.interrupt()

    stopper = threading.Thread(target=stop)
    stopper.start()
    try:
        executor(code)
        message = "the step ended by itself"
    except AgentExecutionError as error:
        message = str(error).split(".")[0][:60]
    ended = time.perf_counter()
    stopper.join()
    return ended - stopped_at[0], message


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with SandboxExecutor(
        additional_authorized_imports=["*"], timeout=120, stop_grace=STOP_GRACE_S
    ) as executor:
        executor("1")  # the worker runs: the figures leave its start out
        for name, code in STEPS.items():
            figures = [stop_seconds(executor, code) for _ in range(args.repeats)]
            median = statistics.median(seconds for seconds, _ in figures)
            print(f"{name:>18}: stop -> error {median * 1000:7.1f} ms  ({figures[-1][1]})")
    print(f"(stop_grace = {STOP_GRACE_S:g} s)")


if __name__ == "__main__":
    main()
