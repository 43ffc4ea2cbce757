"""Cold start: seconds from `python app.py` to its first HTTP 200 and to a usable chat, next to
smolagents' GradioUI.

    python bench/cold_start.py [--repeats 5] [--restart]

Starts each app in a fresh process with a fresh data folder, no API key and no network, and
polls it every 20 ms. With `--restart`, smolui starts each time on the same data folder, as
a restarted app finds it (its database made and migrated by one start before the timed ones). Prints, per app, the median (and min/max) over the repeats of:
  - "200 at /": the first HTTP 200 answer to `GET /`;
  - "chat usable": the first HTTP 200 answer to `GET /config` (gradio's page configuration:
    the real chat page is built, its events are wired and it serves);
  - the CPU seconds the app process had used at each of those moments (steadier than wall
    time on a shared machine).
smolui is `python app.py` with its offline default model (SmolLM2 through llama.cpp), loaded
in the background. smolagents is a minimal `GradioUI(CodeAgent(tools=[], model=...))` app,
run by the interpreter of a separate virtual environment (default `/opt/smolagents-venv`,
`pip install "smolagents[gradio]"`); its column is skipped when that is missing. The two
apps take turns, so a change in the machine's load hits both alike; the load average is
printed before and after.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
POLL_S = 0.02
TIMEOUT_S = 180.0
ROWS = (
    ("200 at /", "first"),
    ("chat usable (/config 200)", "ready"),
    ("CPU s by 200 at /", "first_cpu"),
    ("CPU s by chat usable", "ready_cpu"),
)
SECRETS = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")

# The smaller smolagents app: what its docs show, with a model built without network calls.
SMOLAGENTS_APP = """
import sys
from smolagents import CodeAgent, GradioUI, InferenceClientModel

agent = CodeAgent(tools=[], model=InferenceClientModel(model_id="Qwen/Qwen2.5-Coder-32B-Instruct"))
GradioUI(agent, file_upload_folder=sys.argv[2]).launch(
    share=False, server_name="127.0.0.1", server_port=int(sys.argv[1])
)
"""


class Timings(NamedTuple):
    """One start: wall seconds to each answer, and CPU seconds the app had used by then."""

    first: float
    ready: float
    first_cpu: float
    ready_cpu: float


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def answers_200(url: str) -> bool:
    """True when `GET url` answers 200 (False on any error, refused connection included)."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (OSError, urllib.error.URLError):
        return False


def time_start(command: list[str], env: dict[str, str], port: int) -> Timings:
    """Start `command`, time its start (`Timings`), stop it.

    Raises:
        RuntimeError: The process ended, or did not answer within `TIMEOUT_S`.
    """
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        started = time.perf_counter()
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            timings = poll(base, proc, started)
        except RuntimeError as error:
            log.seek(0)
            tail = log.read().decode(errors="replace")[-2000:]
            raise RuntimeError(f"{command[1]}: {error}\n{tail}") from None
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return timings


def poll(base: str, proc: subprocess.Popen, started: float) -> Timings:
    """Wall seconds from `started` to a 200 at `base`/ and at `base`/config, and the CPU
    seconds the process had used by then.

    After the first 200 it reads the page to its end, as a browser does (smolui's starting
    page ends when the app serves), so that polling does not load the app while it starts.
    """
    first = first_cpu = None
    while True:
        if proc.poll() is not None or time.perf_counter() - started > TIMEOUT_S:
            raise RuntimeError(f"did not serve (exit code {proc.poll()})")
        if first is None and answers_200(base + "/"):
            first, first_cpu = time.perf_counter() - started, cpu_seconds(proc.pid)
        if first is not None:
            read_page(base + "/")
            if answers_200(base + "/config"):
                ready = time.perf_counter() - started
                return Timings(first, ready, first_cpu, cpu_seconds(proc.pid))
        time.sleep(POLL_S)


def read_page(url: str) -> None:
    """Read `url` to its end (errors ignored: the caller looks again)."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
            response.read()
    except (OSError, urllib.error.URLError):
        pass


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system, all threads) process `pid` has used so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def smolui_run(folder: Path) -> Timings:
    port = free_port()
    folders = {"SMOLUI_DATA_DIR": folder / "data", "SMOLUI_UPLOAD_FOLDER": folder / "uploads"}
    env = clean_env(GRADIO_SERVER_PORT=str(port), **{k: str(v) for k, v in folders.items()})
    env.pop("SMOLUI_MODEL", None)  # the offline default
    return time_start([sys.executable, "app.py"], env, port)


def smolagents_run(python: Path, folder: Path) -> Timings:
    port = free_port()
    script = folder / "smolagents_app.py"
    script.write_text(SMOLAGENTS_APP)
    command = [str(python), str(script), str(port), str(folder / "uploads")]
    return time_start(command, clean_env(HF_HUB_OFFLINE="1"), port)


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without API keys, with gradio's analytics off, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in SECRETS}
    env["GRADIO_ANALYTICS_ENABLED"] = "False"
    env.update(extra)
    return env


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def summary(times: list[float]) -> str:
    if not times:
        return "-"
    return f"{statistics.median(times):5.2f} s ({min(times):.2f}-{max(times):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--smolagents-venv", type=Path, default=Path("/opt/smolagents-venv"))
    parser.add_argument("--restart", action="store_true",
                        help="smolui starts on the data folder of an earlier start")  # fmt: skip
    args = parser.parse_args()
    python = args.smolagents_venv / "bin" / "python"
    rivals = python.exists()
    print(f"cold start, median (min-max) of {args.repeats} starts each · {load_average()}")
    if not rivals:
        print(f"(no {python}: smolagents column skipped)")
    results: dict[str, list[Timings]] = {"smolui": [], "smolagents": []}
    kept = tempfile.TemporaryDirectory(prefix="cold-start-kept-")
    if args.restart:
        print("smolui restarts on one data folder")
        smolui_run(Path(kept.name))  # makes and migrates the database
    for _ in range(args.repeats):
        if args.restart:
            results["smolui"].append(smolui_run(Path(kept.name)))
        else:
            with tempfile.TemporaryDirectory(prefix="cold-start-") as folder:
                results["smolui"].append(smolui_run(Path(folder)))
        if rivals:
            with tempfile.TemporaryDirectory(prefix="cold-start-") as folder:
                results["smolagents"].append(smolagents_run(python, Path(folder)))
    print(f"{'':>26} {'smolui (python app.py)':>26} {'smolagents GradioUI':>26}")
    for label, field in ROWS:
        row = [summary([getattr(run, field) for run in results[name]]) for name in results]
        print(f"{label:>26} {row[0]:>26} {row[1]:>26}")
    print(f"after: {load_average()}")
    kept.cleanup()


if __name__ == "__main__":
    main()
