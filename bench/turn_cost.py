"""What one message costs as a conversation grows: the figures of issue 31's "a turn's cost
does not grow with the conversation".

    python bench/turn_cost.py [--messages 60] [--steps 1] [--executor local|sandbox]

Drives the real app (`bench/ui_server.py`, scripted model, in its own process) in Chromium as
a person does: type, press send, wait for the turn's footer; for one conversation of
`--messages` user messages it prints, at messages 1, 30 and 60 (and the last):

- show: send pressed to the user's message on screen (ms);
- turn: send pressed to the turn's footer on screen (s);
- app CPU: the server's CPU seconds for the turn (its sandbox workers included);
- page: the browser main thread's busy seconds for the turn.

Goal: message 60 within 1.3x of message 1 on each. The page holds a window of the chat's last
messages (`SMOLUI_CHAT_WINDOW`, `smolui.render.chat_window`), so the messages are found by
their text, not counted. The machine's load average is printed:
on a busy machine the figures are noisy, compare ratios of one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ui import ARGS, CHROMIUM, ServerProcess, cpu_seconds, open_page, submit  # noqa: E402

# Records when message N (the person's "message N: ...") first shows, and when a footer first
# shows after it. Found by its text, not by counting rows: the page holds a window of the chat
# (`smolui.render.chat_window`), so rows come and go as the conversation grows.
TURN_WATCH = """() => {
  window.__users = {};
  window.__ends = {};
  const look = () => {
    const users = document.querySelectorAll('#chat .user-row');
    const last = users[users.length - 1];
    const found = last && /message (\\d+):/.exec(last.textContent || '');
    if (!found) return;
    const n = found[1], now = Date.now();
    if (!(n in window.__users)) window.__users[n] = now;
    const subs = document.querySelectorAll('#chat sub');
    const footer = subs[subs.length - 1];
    const after = footer && (last.compareDocumentPosition(footer) & Node.DOCUMENT_POSITION_FOLLOWING);
    if (after && !(n in window.__ends)) window.__ends[n] = now;
  };
  new MutationObserver(look).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""
AT = (1, 30, 60)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=60)
    parser.add_argument("--steps", type=int, default=1, help="agent steps per turn")
    parser.add_argument("--delay", type=float, default=0.05, help="model seconds per step")
    parser.add_argument("--executor", default="local", choices=["local", "sandbox"])
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    app = ServerProcess(args.executor, args.delay, concurrency=4)
    app.set_steps(args.steps)
    rows: list[tuple[int, float, float, float, float]] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = open_page(browser, app.url)
        page.evaluate(TURN_WATCH)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")

        def page_busy() -> float:
            metrics = cdp.send("Performance.getMetrics")["metrics"]
            return next(m["value"] for m in metrics if m["name"] == "TaskDuration")

        for n in range(1, args.messages + 1):
            cpu, busy = cpu_seconds(app.proc.pid)["server"], page_busy()
            sent = submit(page, f"message {n}: what is {n} times two?")
            page.wait_for_function(f"'{n}' in window.__ends")
            page.locator("#message textarea:not([disabled])").wait_for()
            shown, ended = page.evaluate(f"[window.__users['{n}'], window.__ends['{n}']]")
            row = (
                n,
                shown - sent,
                (ended - sent) / 1000,
                cpu_seconds(app.proc.pid)["server"] - cpu,
                page_busy() - busy,
            )
            rows.append(row)
            # One line a message on stderr: a run cut short still says how far it got.
            print("{:>8} {:>8.0f} {:>7.2f} {:>9.3f} {:>7.3f}".format(*row), file=sys.stderr)
        chat_kb = len(page.locator("#chat").inner_html()) / 1024
        browser.close()
    print_table(rows, chat_kb, args)  # before the server stops: a slow stop loses nothing
    app.close()


def print_table(rows: list[tuple[int, float, float, float, float]], chat_kb: float, args) -> None:
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"smolui turn cost · {args.steps}-step turns, scripted model {args.delay * 1000:.0f} ms/step, "
        f"executor {args.executor} · load average {load} on {os.cpu_count()} CPUs"
    )
    print(f"{'message':>8} {'show ms':>8} {'turn s':>7} {'app CPU s':>9} {'page s':>7}")
    wanted = sorted({n for n in AT if n <= len(rows)} | {len(rows)})
    for n in wanted:
        window = [r for r in rows if abs(r[0] - n) <= 1]  # the message and its neighbours
        show, turn, cpu, page = (statistics.median(r[i] for r in window) for i in range(1, 5))
        print(f"{n:>8} {show:>8.0f} {turn:>7.2f} {cpu:>9.3f} {page:>7.3f}")
    first = [r for r in rows if r[0] <= 2]
    last = [r for r in rows if r[0] >= len(rows) - 1]
    names = ("show", "turn", "app CPU", "page")
    ratios = [
        statistics.median(r[i] for r in last) / max(1e-9, statistics.median(r[i] for r in first))
        for i in range(1, 5)
    ]
    print(
        f"message {len(rows)} / message 1 (goal <= 1.3x): "
        + ", ".join(f"{name} {ratio:.2f}x" for name, ratio in zip(names, ratios, strict=True))
        + f" · chat HTML at the end {chat_kb:.0f} KiB"
    )


if __name__ == "__main__":
    main()
