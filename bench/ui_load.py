"""Page load benchmark: page weight and time to a usable message box, in Chromium.

    python bench/ui_load.py [--loads 5]

Prints, for the page as shipped and for the page without smolui's own CSS and script
(`smolui.ui.theme`), the median over `--loads` fresh browser contexts of:
  - bytes the browser received (the page weight, every request, cold cache), and
  - milliseconds from navigation to an enabled message box.
Each app runs in its own process (`--serve`), so the browser's driver does not share its GIL.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


def serve(plain: bool) -> None:
    """Run the app (scripted model, local executor) and print its port; serve until killed.

    Args:
        plain: Launch without smolui's CSS (both style sheets) and script.
    """
    import socket

    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    from agents.loop.code_agent import CodeAgent
    from agents.models.scripted import ScriptedModel
    from smolui.app.gradio_ui import GradioUI
    from smolui.app.settings import Settings

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = Settings(model="scripted", executor="local", port=port,
                        upload_folder=tempfile.mkdtemp(prefix="bench-uploads-"),
                        data_dir=tempfile.mkdtemp(prefix="bench-data-"))  # fmt: skip

    def make_agent() -> Any:
        return CodeAgent([], ScriptedModel(["<code>\nfinal_answer('ok')\n</code>"]))

    options: dict[str, Any] = {"css_paths": None, "js": None, "head": None} if plain else {}
    ui = GradioUI(make_agent, settings=settings, model_label=lambda: "scripted")
    ui.launch(prevent_thread_lock=True, quiet=True, **options)
    print(port, flush=True)
    while True:
        time.sleep(3600)


def measure(url: str, loads: int) -> tuple[float, float]:
    """Median page weight (bytes) and time to an enabled message box (ms) over `loads`."""
    from playwright.sync_api import sync_playwright

    weights, times = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for _ in range(loads):
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            received: list[float] = []
            cdp.on(
                "Network.loadingFinished",
                lambda e, got=received: got.append(e["encodedDataLength"]),
            )
            start = time.perf_counter()
            page.goto(url)
            page.locator("#message textarea").wait_for(state="visible", timeout=60_000)
            page.wait_for_function(
                "() => !document.querySelector('#message textarea').disabled", timeout=60_000
            )
            times.append((time.perf_counter() - start) * 1000)
            page.wait_for_timeout(1500)  # late assets (fonts, icons); gradio's queue never idles
            weights.append(sum(received))
            context.close()
        browser.close()
    return statistics.median(weights), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--plain", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.plain)
        return
    for label, extra in (("as shipped", []), ("without smolui.ui.theme", ["--plain"])):
        server = subprocess.Popen(
            [sys.executable, __file__, "--serve", *extra], stdout=subprocess.PIPE, text=True
        )
        try:
            port = int(server.stdout.readline())
            weight, ready = measure(f"http://127.0.0.1:{port}/", args.loads)
            print(f"{label:22s} page weight {weight / 1024:8.1f} KiB   "
                  f"message box usable after {ready:7.0f} ms (median of {args.loads})")  # fmt: skip
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
