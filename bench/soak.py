"""Soak: many turns across many conversations on one app process; does it keep what it should not?

    python bench/soak.py [--turns 1000] [--conversations 20] [--every 100]

Starts the app in a child process (scripted one-step model, in-process executor, its own data
folder), then runs `--turns` turns round-robin over `--conversations` conversations through
the OpenAI-compatible `/v1/chat/completions` (each turn continues its conversation by id).
Every `--every` turns it prints the app's RSS and open file descriptors, and their growth
since the last line; at the end, the RSS slope per turn after the first `--every` turns
(warm-up). A slope near 0 means nothing grows per turn beyond each conversation's own
history; the issue's soak measured ~0.44 MB per turn before the fixes.

`tests/smolui/test_soak_memory.py` runs `soak` for a few hundred turns (marked slow).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANSWER = (
    "Thought: answer it.\n<code>\nnumbers = list(range(100))\nfinal_answer(sum(numbers))\n</code>"
)


@dataclass(frozen=True)
class Sample:
    """The app's footprint after some turns.

    Args:
        turns: Turns done so far.
        rss: Resident set size, bytes.
        fds: Open file descriptors.
    """

    turns: int
    rss: int
    fds: int


def footprint(pid: int, turns: int) -> Sample:
    """Read a process's RSS and open descriptors from /proc (Linux).

    Args:
        pid: The process.
        turns: Turns done so far (recorded with the figures).
    """
    status = Path(f"/proc/{pid}/status").read_text()
    kib = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    return Sample(turns, kib * 1024, len(os.listdir(f"/proc/{pid}/fd")))


def serve(data: Path) -> None:
    """Run the app (scripted model, in-process executor) and print its port; serve until killed.

    Args:
        data: The app's data folder.
    """
    import socket
    import threading

    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    sys.path.insert(0, str(ROOT))
    from agents import CodeAgent, ScriptedModel
    from smolui.app.gradio_ui import GradioUI
    from smolui.app.settings import Settings

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = Settings(model="scripted", executor="local", host="127.0.0.1", port=port,
                        data_dir=str(data), upload_folder=str(data / "uploads"))  # fmt: skip

    def make_agent() -> CodeAgent:
        model = ScriptedModel([ANSWER], loop=True)
        return CodeAgent([], model, executor_type="local", verbosity_level=-1)

    ui = GradioUI(make_agent, settings=settings, model_label=lambda: "scripted")
    ui.launch(prevent_thread_lock=True, quiet=True)
    print(port, flush=True)
    threading.Event().wait()


@contextmanager
def running_app(data: Path) -> Iterator[tuple[str, int]]:
    """Start `serve` in a child process; yields its base URL and pid, stops it after.

    Args:
        data: The app's data folder.
    """
    child = subprocess.Popen([sys.executable, __file__, "--serve", str(data)], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        line = child.stdout.readline()
        if not line.strip().isdigit():
            raise RuntimeError(f"the app did not start (it printed {line!r})")
        yield f"http://127.0.0.1:{line.strip()}/", child.pid
    finally:
        child.terminate()
        child.wait(60)


def soak(url: str, pid: int, turns: int, conversations: int, every: int) -> Iterator[Sample]:
    """Run `turns` turns round-robin over `conversations` conversations; yield the footprint
    before the first turn and after every `every` turns.

    Args:
        url: The app's base URL.
        pid: The app's process id.
        turns: How many turns in all.
        conversations: How many conversations they are spread over.
        every: Turns between two samples.
    """
    import httpx

    ids: list[str | None] = [None] * conversations
    yield footprint(pid, 0)
    with httpx.Client(base_url=url + "v1", timeout=120) as client:
        for turn in range(1, turns + 1):
            slot = turn % conversations
            body = {"model": "smolui", "messages": [{"role": "user", "content": f"Turn {turn}"}]}
            if ids[slot] is not None:
                body["conversation_id"] = ids[slot]
            answer = client.post("/chat/completions", json=body)
            answer.raise_for_status()
            ids[slot] = answer.json()["conversation_id"]
            if turn % every == 0:
                yield footprint(pid, turn)


def slope_per_turn(samples: list[Sample]) -> float:
    """Least-squares RSS growth per turn (bytes) over `samples`."""
    n = len(samples)
    mean_t = sum(s.turns for s in samples) / n
    mean_r = sum(s.rss for s in samples) / n
    spread = sum((s.turns - mean_t) ** 2 for s in samples)
    return sum((s.turns - mean_t) * (s.rss - mean_r) for s in samples) / spread if spread else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--serve", metavar="DATA", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(Path(args.serve))
        return
    data = Path(tempfile.mkdtemp(prefix="smolui-soak-"))
    samples: list[Sample] = []
    with running_app(data) as (url, pid):
        for sample in soak(url, pid, args.turns, args.conversations, args.every):
            last = samples[-1] if samples else sample
            samples.append(sample)
            print(f"{sample.turns:6d} turns  RSS {sample.rss / 1e6:8.1f} MB "
                  f"({(sample.rss - last.rss) / 1e6:+6.1f})  fds {sample.fds:4d} "
                  f"({sample.fds - last.fds:+d})", flush=True)  # fmt: skip
    after_warm_up = samples[2:]  # from the first `every` turns on
    if len(after_warm_up) >= 2:
        print(f"RSS slope after warm-up: {slope_per_turn(after_warm_up) / 1e3:.1f} kB per turn")


if __name__ == "__main__":
    main()
