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

Goal: message 60 within 1.3x of message 1 on each. Each figure is taken over the five turns
around the message named (messages 1-5 for message 1, 56-60 for message 60): the mean of
the three left when the highest and the lowest are dropped. So message 1's cold first turn
(which opens the agent) and a one-turn spike of a loaded machine do not count, growth does;
and the app's CPU, which /proc counts in 10 ms ticks, is not one or two ticks per figure.
The spread of the app's CPU over the five turns is printed beside it. The page holds
a window of the chat's last messages (`SMOLUI_CHAT_WINDOW`, `smolui.render.chat_window`), so
the messages are found by their text, not counted. The last lines say how many turns ended
answered (a turn that runs to its step limit costs many turns' worth) and how many messages
the server held back from the page at the end. The machine's load average is printed: on a
busy machine the figures are noisy, compare ratios of one run.
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
NEAR = 2  # a point's figures are taken over the 2 * NEAR + 1 turns around it
# The last footer's text, and the "Earlier messages (N)" count (0 when the button is hidden).
LAST_FOOTER = """() => {
  const subs = document.querySelectorAll('#chat sub');
  return subs.length ? subs[subs.length - 1].textContent : '';
}"""
HELD_BACK = """() => {
  const button = document.querySelector('.smolui-earlier');
  const found = button && button.offsetParent && /\\((\\d+)\\)/.exec(button.textContent || '');
  return found ? Number(found[1]) : 0;
}"""


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
    answered = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = open_page(browser, app.url)
        page.evaluate(TURN_WATCH)
        # A new document drops the watch (and the turn's timings): the run then stops and
        # says so, rather than failing inside the page's script or measuring another page.
        reloads: list[str] = []
        page.on("framenavigated", lambda frame: frame.parent_frame or reloads.append(frame.url))
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")

        def page_busy() -> float:
            metrics = cdp.send("Performance.getMetrics")["metrics"]
            return next(m["value"] for m in metrics if m["name"] == "TaskDuration")

        for n in range(1, args.messages + 1):
            cpu, busy = cpu_seconds(app.proc.pid)["server"], page_busy()
            sent = submit(page, f"message {n}: what is {n} times two?")
            page.wait_for_function(f"!window.__ends || '{n}' in window.__ends")
            if reloads or not page.evaluate("!!window.__ends"):
                sys.exit(
                    f"the page loaded a new document during message {n} ({reloads or 'unseen'}): "
                    "its timings are lost; run the bench again"
                )
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
            answered += "answered" in page.evaluate(LAST_FOOTER)
            # One line a message on stderr: a run cut short still says how far it got.
            print("{:>8} {:>8.0f} {:>7.2f} {:>9.3f} {:>7.3f}".format(*row), file=sys.stderr)
        chat_kb = len(page.locator("#chat").inner_html()) / 1024
        held_back = page.evaluate(HELD_BACK)
        browser.close()
    print_table(rows, chat_kb, args)  # before the server stops: a slow stop loses nothing
    print(
        f"turns answered: {answered} of {len(rows)} · messages held back on the server at the "
        f"end: {held_back}"
    )
    app.close()


def near(rows: list[tuple[int, float, float, float, float]], n: int) -> list[tuple]:
    """The 2 * `NEAR` + 1 turns around message `n` (moved inside the conversation at its ends)."""
    first = max(1, min(n - NEAR, len(rows) - 2 * NEAR))
    return [r for r in rows if first <= r[0] <= first + 2 * NEAR]


def typical(values: list[float]) -> float:
    """The mean without the highest and the lowest value (with three or more)."""
    ordered = sorted(values)
    kept = ordered[1:-1] if len(ordered) >= 3 else ordered
    return statistics.fmean(kept)


def print_table(rows: list[tuple[int, float, float, float, float]], chat_kb: float, args) -> None:
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"smolui turn cost · {args.steps}-step turns, scripted model {args.delay * 1000:.0f} ms/step, "
        f"executor {args.executor} · load average {load} on {os.cpu_count()} CPUs"
    )
    print(
        f"{'message':>8} {'show ms':>8} {'turn s':>7} {'app CPU s':>9} {'(min-max)':>13} "
        f"{'page s':>7}   over the {2 * NEAR + 1} turns around n"
    )
    wanted = sorted({n for n in AT if n <= len(rows)} | {len(rows)})
    for n in wanted:
        window = near(rows, n)
        show, turn, cpu, page = (typical([r[i] for r in window]) for i in range(1, 5))
        spread = f"{min(r[3] for r in window):.3f}-{max(r[3] for r in window):.3f}"
        print(f"{n:>8} {show:>8.0f} {turn:>7.2f} {cpu:>9.3f} {spread:>13} {page:>7.3f}")
    first, last = near(rows, 1), near(rows, len(rows))
    names = ("show", "turn", "app CPU", "page")
    ratios = [
        typical([r[i] for r in last]) / max(1e-9, typical([r[i] for r in first]))
        for i in range(1, 5)
    ]
    print(
        f"message {len(rows)} / message 1 (goal <= 1.3x): "
        + ", ".join(f"{name} {ratio:.2f}x" for name, ratio in zip(names, ratios, strict=True))
        + f" · chat HTML at the end {chat_kb:.0f} KiB"
    )


if __name__ == "__main__":
    main()
