"""What a sandbox worker is doing, read from /proc: the event a freeze test waits for."""

from __future__ import annotations

import os


def stopped(pid: int) -> bool:
    """Whether every thread of the process is stopped (SIGSTOP): state T in /proc (Linux).

    Args:
        pid: The worker's process id (`SandboxExecutor.worker_pid`).
    """
    states = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as file:
                states.append(file.read().rsplit(")", 1)[1].split()[0])
        except FileNotFoundError:  # a thread that ended meanwhile
            continue
    return bool(states) and all(state in ("T", "t") for state in states)
