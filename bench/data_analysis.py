"""Data-analysis figures for the sandbox: time from code that imports pandas and matplotlib
and draws one plot to the image in the step, on a cold worker and on a warm one (which
imported the stack while idle, as it does while the model writes its first step), and the
idle worker's memory and CPU with and without the stack.

    python bench/data_analysis.py [--repeats 3]

Goal (issue 12): warm < 0.5 s beyond the plot's own time. Times are medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.executors.preload import IDLE_S  # noqa: E402
from agents.executors.sandbox import SandboxExecutor  # noqa: E402

PLOT = (
    "import pandas as pd, matplotlib\n"
    "import matplotlib.pyplot as plt\n"
    "df = pd.DataFrame({'month': range(1, 13), 'sales': [x * x % 17 for x in range(12)]})\n"
    "df.plot(x='month', y='sales', kind='bar')\n"
    "plt.title('sales')\n"
)


def memory_mb(pid: int) -> tuple[float, float]:
    """Resident and private (unshared) memory of a process, in MB (Linux)."""
    fields: dict[str, int] = {}
    with open(f"/proc/{pid}/smaps_rollup") as file:
        for line in file:
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                fields[parts[0].rstrip(":")] = int(parts[1])
    private = fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)
    return fields.get("Rss", 0) / 1024, private / 1024


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used."""
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_preloaded(executor: SandboxExecutor, timeout: float = 15.0) -> None:
    """Wait until the worker's CPU use settles (the stack is imported), or the timeout."""
    pid = executor.worker_pid
    deadline = time.monotonic() + timeout
    time.sleep(IDLE_S)
    last = cpu_s(pid)
    while time.monotonic() < deadline:
        time.sleep(0.5)
        now = cpu_s(pid)
        if now - last < 0.01:
            return
        last = now


def one_run(warm: bool) -> dict[str, float]:
    """Times and memory of one worker: first plot, the same plot again, idle memory."""
    with SandboxExecutor(preload_data_stack=warm, spare_worker=True) as executor:
        executor.start()
        pid = executor.worker_pid
        if warm:
            wait_preloaded(executor)
        idle_rss, idle_private = memory_mb(pid)
        idle_cpu = cpu_s(pid)
        started = time.perf_counter()
        out = executor(PLOT)
        first = time.perf_counter() - started
        if len(out.images) != 1:
            raise RuntimeError(f"expected one image in the step, got {len(out.images)}: {out.logs}")
        started = time.perf_counter()
        executor(PLOT)
        again = time.perf_counter() - started
        rss, private = memory_mb(pid)
    return {"first": first, "again": again, "idle_rss": idle_rss, "idle_private": idle_private,
            "idle_cpu": idle_cpu, "rss": rss, "private": private}  # fmt: skip


def median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cold = [one_run(warm=False) for _ in range(args.repeats)]
    warm = [one_run(warm=True) for _ in range(args.repeats)]
    plot = median(cold + warm, "again")
    print("code `import pandas, matplotlib` + one bar plot -> PNG image in the step:")
    print(f"  cold worker (imports in the step):   {median(cold, 'first') * 1000:7.0f} ms")
    print(f"  warm worker (imported while idle):   {median(warm, 'first') * 1000:7.0f} ms")
    print(f"  the plot alone (same code again):    {plot * 1000:7.0f} ms")
    extra = median(warm, "first") - plot
    print(f"  warm, beyond the plot's own time:    {extra * 1000:7.0f} ms   goal < 500")
    print("idle worker memory, resident / private (unshared):")
    print(f"  fresh, nothing imported:     {median(cold, 'idle_rss'):6.1f} / "
          f"{median(cold, 'idle_private'):6.1f} MB")  # fmt: skip
    print(f"  numpy+pandas+pyplot loaded:  {median(warm, 'idle_rss'):6.1f} / "
          f"{median(warm, 'idle_private'):6.1f} MB")  # fmt: skip
    print(f"  after two plots:             {median(warm, 'rss'):6.1f} / "
          f"{median(warm, 'private'):6.1f} MB")  # fmt: skip
    cost = median(warm, "idle_cpu") - median(cold, "idle_cpu")
    print(f"CPU a warm worker spends importing while idle: {cost:5.2f} s")


if __name__ == "__main__":
    main()
