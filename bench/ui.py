"""UI benchmark: drive the real app in Chromium and print what the UI costs.

    python bench/ui.py [--executor local|sandbox] [--delay 0.1]

Prints:
  0. The idle server's CPU use.
  1. UI overhead per turn beyond the agent's own time (ms): the browser's submit-to-footer
     time minus the time `agent.run` took on the server.
  2. Bytes the browser received for 10/20/30-step streamed turns (should grow linearly), and
     the page's main-thread time and the server's CPU time per turn as one chat grows.
  3. Wall time of 8 concurrent sessions vs one session (goal: within 1.3x), in the browsers
     (click to footer) and at the server (first turn handler start to last end): with the
     browsers on the same CPUs as the server, then with the browsers pinned to a CPU of their
     own (as when visitors' browsers run on their own machines), then without browsers.

Cold start (`python app.py` to its first HTTP 200, next to smolagents' GradioUI) is
measured by `bench/cold_start.py`.

The app runs in its own process (`bench/ui_server.py`), so the browsers' driver does not
share its GIL. The model is a `ScriptedModel` with fixed delays and streamed output, so the
figures measure the app, not a language model.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
FOOTER_WATCH = """() => {
  window.__footers = [];
  const seen = () => document.querySelectorAll('#chat sub').length;
  let count = seen();
  new MutationObserver(() => {
    const now = seen();
    if (now > count) { window.__footers.push(Date.now()); }
    count = now;
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


class ServerProcess:
    """`bench/ui_server.py` in a child process: the app, with its own GIL and CPU time."""

    def __init__(self, executor: str, delay: float, concurrency: int):
        command = [sys.executable, str(ROOT / "bench" / "ui_server.py"), "--executor", executor,
                   "--delay", str(delay), "--concurrency", str(concurrency)]  # fmt: skip
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        port = json.loads(self.proc.stdout.readline())["port"]
        self.url = f"http://127.0.0.1:{port}/"

    def ask(self, cmd: str, **fields: Any) -> Any:
        self.proc.stdin.write(json.dumps({"cmd": cmd, **fields}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def set_steps(self, steps: int) -> None:
        self.ask("steps", n=steps)

    def pin(self, cpus: set[int]) -> None:
        """Run every thread of the server (and what it starts later) on `cpus`."""
        for task in os.listdir(f"/proc/{self.proc.pid}/task"):
            with contextlib.suppress(OSError):  # the thread ended meanwhile
                os.sched_setaffinity(int(task), cpus)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(30)


def open_page(browser: Any, url: str) -> Any:
    context = browser.new_context()
    context.set_default_timeout(120_000)
    page = context.new_page()
    page.goto(url)
    page.locator("#message textarea").wait_for()
    page.evaluate(FOOTER_WATCH)
    return page


def submit(page: Any, text: str, at_ms: float | None = None) -> float:
    """Type `text`, then press send at the wall-clock time `at_ms` (now if None); returns it."""
    page.locator("#message textarea").fill(text)
    return page.evaluate(
        """(at) => new Promise(done => {
            const press = () => { document.querySelector('#message .submit-button').click(); done(Date.now()); };
            const delay = at === null ? 0 : at - Date.now();
            delay > 0 ? setTimeout(press, delay) : press();
        })""",
        at_ms,
    )


def wait_footer(page: Any, count: int) -> float:
    """Wall-clock ms when the `count`-th turn footer appeared."""
    page.wait_for_function(f"window.__footers.length >= {count}")
    page.locator("#message textarea:not([disabled])").wait_for()
    return page.evaluate(f"window.__footers[{count - 1}]")


def overhead(browser: Any, app: ServerProcess, turns: int) -> list[float]:
    app.set_steps(3)
    page = open_page(browser, app.url)
    results = []
    for turn in range(1, turns + 1):
        before = len(app.ask("run_times"))
        started = submit(page, f"turn {turn}")
        ended = wait_footer(page, turn)
        agent_s = app.ask("run_times")[before]
        results.append((ended - started) / 1000 - agent_s)
    page.context.close()
    return results


def streamed_bytes(browser: Any, app: ServerProcess, steps: int, repeats: int = 3) -> int:
    """Median bytes (decoded) the browser received during one `steps`-step turn."""
    app.set_steps(steps)
    sizes = []
    for _ in range(repeats):
        page = open_page(browser, app.url)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        received: list[int] = []
        cdp.on("Network.dataReceived", lambda e, got=received: got.append(e.get("dataLength", 0)))
        submit(page, f"{steps} steps please")
        wait_footer(page, 1)
        sizes.append(sum(received))
        page.context.close()
    return int(statistics.median(sizes))


def cost_as_chat_grows(browser: Any, app: ServerProcess, turns: int) -> list[tuple[float, float]]:
    """(page main-thread seconds, server CPU seconds) for each turn of one growing
    conversation; each turn streams 5 steps piece by piece, as a model generating tokens."""
    app.set_steps(5)
    app.ask("piece_delay", s=0.03)
    page = open_page(browser, app.url)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")

    def busy() -> tuple[float, float]:
        metrics = cdp.send("Performance.getMetrics")["metrics"]
        page_s = next(m["value"] for m in metrics if m["name"] == "TaskDuration")
        return page_s, cpu_seconds(app.proc.pid)["server"]

    costs = []
    for turn in range(1, turns + 1):
        before = busy()
        submit(page, f"turn {turn}")
        wait_footer(page, turn)
        after = busy()
        costs.append((after[0] - before[0], after[1] - before[1]))
    page.context.close()
    app.ask("piece_delay", s=0.0)
    return costs


def concurrent(browser: Any, app: ServerProcess, sessions: int) -> dict[str, tuple[float, float]]:
    """One 5-step turn alone, then `sessions` turns sent at the same instant from their own pages.

    Returns (one, many) wall times in seconds, as the browsers saw them (click to footer) and
    as the server saw them (first turn handler start to last turn handler end).
    """
    app.set_steps(5)
    app.ask("spans")
    solo = open_page(browser, app.url)
    started = submit(solo, "alone")
    one = (wait_footer(solo, 1) - started) / 1000
    solo.context.close()
    ((turn_start, turn_end),) = app.ask("spans")
    server_one = turn_end - turn_start
    pages = [open_page(browser, app.url) for _ in range(sessions)]
    for index, page in enumerate(pages):
        page.locator("#message textarea").fill(f"together {index}")
    app.ask("spans")
    cpu_before = cpu_seconds(app.proc.pid)
    start_at = time.time() * 1000 + 1500  # every page presses send at this instant
    pending = [page.evaluate_handle(
        """(at) => new Promise(done => setTimeout(() => {
            document.querySelector('#message .submit-button').click(); done(Date.now()); },
            Math.max(0, at - Date.now())))""", start_at) for page in pages]  # fmt: skip
    ended = max(wait_footer(page, 1) for page in pages)
    cpu_used = {k: v - cpu_before[k] for k, v in cpu_seconds(app.proc.pid).items()}
    started = min(handle.json_value() for handle in pending)
    for page in pages:
        page.context.close()
    spans = app.ask("spans")
    server_many = max(end for _, end in spans) - min(start for start, _ in spans)
    slowest = max(end - start for start, end in spans)
    return {"browser": (one, (ended - started) / 1000), "server": (server_one, server_many),
            "turn": (server_one, slowest), "cpu": (cpu_used["browser"], cpu_used["server"])}  # fmt: skip


def cpu_seconds(server_pid: int) -> dict[str, float]:
    """CPU seconds used so far by the Chromium processes and by the server (with its sandbox
    workers), read from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    used = {"browser": 0.0, "server": 0.0}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read()
        except OSError:  # the process ended meanwhile
            continue
        seconds = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
        if b"chromium" in command:
            used["browser"] += seconds
        elif int(entry) == server_pid or int(fields[1]) == server_pid:
            used["server"] += seconds
    return used


def pin_browsers_apart() -> bool:
    """Run what this process spawns from now on (the browsers) on the last CPU only.

    False with a single CPU."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return False
    os.sched_setaffinity(0, {cpus[-1]})  # the calling thread, which spawns the browser
    return True


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--executor", default="sandbox", choices=["sandbox", "local"])
    parser.add_argument("--delay", type=float, default=0.1, help="model seconds per step")
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=8)
    args = parser.parse_args()
    logging_off()
    from playwright.sync_api import sync_playwright

    app = ServerProcess(args.executor, args.delay, concurrency=args.sessions)
    print(
        f"smolui UI bench · executor={args.executor} · model delay {args.delay * 1000:.0f} ms/step"
    )
    time.sleep(2)  # let start-up settle
    before = cpu_seconds(app.proc.pid)["server"]
    time.sleep(5)
    idle = (cpu_seconds(app.proc.pid)["server"] - before) / 5
    print(f"0. idle server (no page open): {idle * 100:.1f}% of a core")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        costs = overhead(browser, app, args.turns)
        print(f"1. UI overhead per 3-step turn beyond agent time: median {statistics.median(costs) * 1000:.0f} ms "
              f"(min {min(costs) * 1000:.0f}, max {max(costs) * 1000:.0f}, {len(costs)} turns)")  # fmt: skip
        sizes = {steps: streamed_bytes(browser, app, steps) for steps in (10, 20, 30)}
        per_step = {steps: size / steps for steps, size in sizes.items()}
        print("2. bytes received by the browser per streamed turn: "
              + ", ".join(f"{s} steps {b / 1024:.0f} KiB ({per_step[s] / 1024:.1f} KiB/step)" for s, b in sizes.items())
              + f"; 30/10 ratio {sizes[30] / sizes[10]:.2f} (linear: 3.00)")  # fmt: skip
        growth = cost_as_chat_grows(browser, app, 15)
        print("   one chat growing to 15 streamed 5-step turns, page main-thread / server CPU per turn: "
              + ", ".join(f"turn {n} {growth[n - 1][0]:.2f} / {growth[n - 1][1]:.2f} s" for n in (1, 5, 10, 15)))  # fmt: skip
        shared = concurrent(browser, app, args.sessions)
        browser.close()
    print(f"3. {args.sessions} concurrent sessions vs one (5-step turns; goal <= 1.3x):")
    report("browsers and server on the same CPUs", shared)
    all_cpus = os.sched_getaffinity(0)
    if pin_browsers_apart():
        app.pin(all_cpus - os.sched_getaffinity(0))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            apart = concurrent(browser, app, args.sessions)
            browser.close()
        app.pin(all_cpus)
        report(f"browsers on CPU {max(all_cpus)}, server on the others", apart)
    one, many = app.ask("server_only", sessions=args.sessions)
    print(f"   server alone, turns through the handlers in threads: one {one:.2f} s, "
          f"{args.sessions} at once {many:.2f} s, ratio {many / one:.2f}x")  # fmt: skip
    app.close()


def report(label: str, figures: dict[str, tuple[float, float]]) -> None:
    (one, many), (server_one, server_many) = figures["browser"], figures["server"]
    slowest = figures["turn"][1]
    browsers_cpu, server_cpu = figures["cpu"]
    print(f"   {label}:\n"
          f"     in the browsers (click to footer): one {one:.2f} s, all {many:.2f} s, ratio {many / one:.2f}x\n"
          f"     at the server (first turn start to last turn end): one {server_one:.2f} s, "
          f"all {server_many:.2f} s, ratio {server_many / server_one:.2f}x\n"
          f"     at the server, the slowest single turn: {slowest:.2f} s, ratio {slowest / server_one:.2f}x\n"
          f"     CPU used meanwhile: browsers {browsers_cpu:.1f} s, server and its workers {server_cpu:.1f} s")  # fmt: skip


def logging_off() -> None:
    import logging

    logging.basicConfig(level=logging.WARNING)


if __name__ == "__main__":
    main()
