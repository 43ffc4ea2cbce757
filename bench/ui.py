"""UI benchmark: drive the real app in Chromium and print what the UI costs.

    python bench/ui.py [--executor local|sandbox] [--delay 0.1]

Prints:
  1. UI overhead per turn beyond the agent's own time (ms): the browser's submit-to-footer
     time minus the time `agent.run` took on the server.
  2. Bytes the browser received for 10/20/30-step streamed turns (should grow linearly).
  3. Wall time of 8 concurrent sessions vs one session (goal: within 1.3x).

The model is a `ScriptedModel` with fixed delays and streamed output, so the figures measure
the app, not a language model.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
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


def step_reply(index: int, last: bool) -> str:
    code = "final_answer(total)" if last else f"total = {index} * 2\nprint('step', {index}, total)"
    return f"Thought: step {index}, doing a small computation as planned.\n<code>\n{code}\n</code>"


class BenchApp:
    """GradioUI on loopback; each conversation's model plays `steps` streamed steps."""

    def __init__(self, executor: str, delay: float, concurrency: int = 8):
        os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
        from smolui.settings import Settings

        with __import__("socket").socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.settings = Settings(model="scripted", executor=executor, port=self.port, max_steps=40,
                                 concurrency=concurrency, max_sessions=64,
                                 upload_folder=tempfile.mkdtemp(prefix="bench-uploads-"))  # fmt: skip
        self.delay = delay
        self.steps = 3
        self.run_times: list[float] = []
        self._lock = threading.Lock()

    def make_agent(self) -> Any:
        from agents.code_agent import CodeAgent
        from agents.models.scripted import ScriptedModel, ScriptedReply

        steps = self.steps
        replies = [ScriptedReply(step_reply(i, i == steps), delay=self.delay, chunk_size=12)
                   for i in range(1, steps + 1)]  # fmt: skip
        agent = CodeAgent([], ScriptedModel(replies, loop=True), executor_type=self.settings.executor,
                          max_steps=40, stream_outputs=True, verbosity_level=-1)  # fmt: skip
        original = agent.run

        def timed_run(*args: Any, **kwargs: Any) -> Any:
            events = original(*args, **kwargs)

            def timed() -> Any:
                started = time.perf_counter()
                yield from events
                with self._lock:
                    self.run_times.append(time.perf_counter() - started)

            return timed()

        agent.run = timed_run
        return agent

    def start(self) -> BenchApp:
        from smolui.gradio_ui import GradioUI

        self.ui = GradioUI(self.make_agent, settings=self.settings, model_label=lambda: "bench")
        self.ui.launch(prevent_thread_lock=True, quiet=True)
        return self


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


def overhead(browser: Any, app: BenchApp, turns: int) -> list[float]:
    app.steps = 3
    page = open_page(browser, app.url)
    results = []
    for turn in range(1, turns + 1):
        before = len(app.run_times)
        started = submit(page, f"turn {turn}")
        ended = wait_footer(page, turn)
        agent_s = app.run_times[before]
        results.append((ended - started) / 1000 - agent_s)
    page.context.close()
    return results


def streamed_bytes(browser: Any, app: BenchApp, steps: int, repeats: int = 3) -> int:
    """Median bytes (decoded) the browser received during one `steps`-step turn."""
    app.steps = steps
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


def concurrent(browser: Any, app: BenchApp, sessions: int) -> tuple[float, float]:
    """Wall time of one 5-step turn alone, then of `sessions` turns sent at the same instant."""
    app.steps = 5
    solo = open_page(browser, app.url)
    started = submit(solo, "alone")
    one = (wait_footer(solo, 1) - started) / 1000
    solo.context.close()
    pages = [open_page(browser, app.url) for _ in range(sessions)]
    for index, page in enumerate(pages):
        page.locator("#message textarea").fill(f"together {index}")
    start_at = time.time() * 1000 + 1500  # every page presses send at this instant
    pending = [page.evaluate_handle(
        """(at) => new Promise(done => setTimeout(() => {
            document.querySelector('#message .submit-button').click(); done(Date.now()); },
            Math.max(0, at - Date.now())))""", start_at) for page in pages]  # fmt: skip
    ended = max(wait_footer(page, 1) for page in pages)
    started = min(handle.json_value() for handle in pending)
    for page in pages:
        page.context.close()
    return one, (ended - started) / 1000


def server_only(app: BenchApp, sessions: int) -> tuple[float, float]:
    """The same comparison without browsers: turns driven through the handlers in threads."""
    from smolui.handlers import ChatHandlers, HandlerConfig
    from smolui.sessions import SessionRegistry
    from smolui.uploads import UploadPolicy

    app.steps = 5
    registry = SessionRegistry(app.make_agent, app.settings.upload_folder, max_sessions=64)
    handlers = ChatHandlers(registry, HandlerConfig(policy=UploadPolicy(), max_steps=40))

    def turn(index: int) -> None:
        shown, pending = handlers.echo({"text": f"turn {index}", "files": []}, [])
        for _ in handlers.run_turn(pending, shown, None):
            pass

    started = time.perf_counter()
    turn(-1)
    one = time.perf_counter() - started
    threads = [threading.Thread(target=turn, args=(i,)) for i in range(sessions)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    many = time.perf_counter() - started
    registry.close_all()
    return one, many


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

    app = BenchApp(args.executor, args.delay, concurrency=args.sessions).start()
    app.url = f"http://127.0.0.1:{app.port}/"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        print(
            f"smolui UI bench · executor={args.executor} · model delay {args.delay * 1000:.0f} ms/step"
        )
        costs = overhead(browser, app, args.turns)
        print(f"1. UI overhead per 3-step turn beyond agent time: median {statistics.median(costs) * 1000:.0f} ms "
              f"(min {min(costs) * 1000:.0f}, max {max(costs) * 1000:.0f}, {len(costs)} turns)")  # fmt: skip
        sizes = {steps: streamed_bytes(browser, app, steps) for steps in (10, 20, 30)}
        per_step = {steps: size / steps for steps, size in sizes.items()}
        print("2. bytes received by the browser per streamed turn: "
              + ", ".join(f"{s} steps {b / 1024:.0f} KiB ({per_step[s] / 1024:.1f} KiB/step)" for s, b in sizes.items())
              + f"; 30/10 ratio {sizes[30] / sizes[10]:.2f} (linear: 3.00)")  # fmt: skip
        one, many = concurrent(browser, app, args.sessions)
        print(f"3. one 5-step session {one:.2f} s; {args.sessions} concurrent sessions {many:.2f} s; "
              f"ratio {many / one:.2f}x (goal <= 1.3x)")  # fmt: skip
        browser.close()
    one, many = server_only(app, args.sessions)
    print(f"   server alone (no browsers): one {one:.2f} s; {args.sessions} concurrent {many:.2f} s; "
          f"ratio {many / one:.2f}x")  # fmt: skip
    app.ui.close()


def logging_off() -> None:
    import logging

    logging.basicConfig(level=logging.WARNING)


if __name__ == "__main__":
    main()
