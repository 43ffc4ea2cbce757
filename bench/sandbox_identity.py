"""What a uid of its own and a PID namespace cost a sandbox worker's start (issue 20).

Prints: the host's cost of a new PID namespace per spawn; the worker's time to build its
view of the files and drop its ids (from its isolation report); and the start of a worker
from the spare with and without those layers, runs interleaved so that the machine's
load weighs on both alike. Needs the app to run as root (otherwise it says so).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.executors.sandbox import SandboxExecutor  # noqa: E402
from agents.executors.sandbox.pidns import popen_in_new_namespace  # noqa: E402


def spawn_ms(runs: int, new_namespace: bool) -> float:
    """Median time to start `/bin/true` (spawn only, not the wait), from one thread."""
    samples: list[float] = []
    popen = popen_in_new_namespace if new_namespace else subprocess.Popen

    def work() -> None:
        for _ in range(runs):
            start = time.perf_counter()
            child = popen(["/bin/true"])
            samples.append(time.perf_counter() - start)
            child.wait()

    thread = threading.Thread(target=work)  # like the sandbox's own spawning thread
    thread.start()
    thread.join()
    return statistics.median(samples) * 1000


def start_ms(upload: str, namespaces: bool) -> tuple[float, dict]:
    """One worker start from the spare, with an upload-like grant; (ms, isolation)."""
    executor = SandboxExecutor(
        spare_worker=True,
        namespaces=namespaces,
        read_only_paths=[upload],
        preload_data_stack=False,
    )
    time.sleep(1.5)  # let the spare refill and boot (slow on a loaded machine): time a start
    start = time.perf_counter()
    executor.start()
    took = (time.perf_counter() - start) * 1000
    report = executor.isolation
    executor.close()
    return took, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    print(f"load average (1, 5, 15 min): {os.getloadavg()} on {os.cpu_count()} CPUs")
    plain, isolated = spawn_ms(args.repeats * 3, False), spawn_ms(args.repeats * 3, True)
    print(f"spawn /bin/true: median {plain:.2f} ms; in a new PID namespace {isolated:.2f} ms")
    upload = tempfile.mkdtemp(prefix="bench-upload-")  # 0700, like an upload folder
    Path(upload, "doc.txt").write_text("x")
    with_layers, without, views = [], [], []
    for _ in range(args.repeats):
        took, report = start_ms(upload, True)
        with_layers.append(took)
        note = report["notes"].get("own_uid", "")
        found = re.search(r"([\d.]+) ms$", note)
        if found:
            views.append(float(found.group(1)))
        without.append(start_ms(upload, False)[0])
    print(f"own uid: {note or 'not active'}; pid namespace: {report.get('pid_namespace')}")
    if views:
        print(f"view of the files + id drop, in the worker: {_spread(views)}")
    print(f"worker start from the spare, namespaces and own uid: {_spread(with_layers)}")
    print(f"worker start from the spare, without them:           {_spread(without)}")


def _spread(samples: list[float]) -> str:
    """Median and fastest: on a loaded machine the fastest run is nearest the cost itself."""
    return f"median {statistics.median(samples):6.1f} ms, fastest {min(samples):6.1f} ms"


if __name__ == "__main__":
    main()
