"""The app under test for `bench/ui.py`, in its own process.

The browsers' driver (Playwright's Python client) must not share a Python process, and so
the GIL, with the server it measures. `bench/ui.py` starts this script, reads the port from
its first line, then sends one JSON command per line and reads one JSON reply per line:

    {"cmd": "steps", "n": 5}          steps of each following turn's scripted model
    {"cmd": "piece_delay", "s": 0.03}  seconds between its streamed pieces
    {"cmd": "run_times"}              agent.run durations so far (seconds)
    {"cmd": "spans"}                  (start, end) of each turn handler since the last call
    {"cmd": "server_only", "sessions": 8}   one turn vs `sessions` turns, no browsers
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def step_reply(index: int, last: bool) -> str:
    # A one-step turn has no earlier step's `total`: it answers with the value itself (else
    # every step fails on the name and the turn runs to the step limit).
    answer = "final_answer(total)" if index > 1 else f"final_answer({index} * 2)"
    code = answer if last else f"total = {index} * 2\nprint('step', {index}, total)"
    return f"Thought: step {index}, doing a small computation as planned.\n<code>\n{code}\n</code>"


class BenchApp:
    """GradioUI on loopback; each conversation's model plays `steps` streamed steps."""

    def __init__(self, executor: str, delay: float, concurrency: int = 8):
        os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
        from smolui.app.settings import Settings

        with __import__("socket").socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.settings = Settings(model="scripted", executor=executor, port=self.port, max_steps=40,
                                 concurrency=concurrency, max_sessions=64,
                                 upload_folder=tempfile.mkdtemp(prefix="bench-uploads-"),
                                 data_dir=tempfile.mkdtemp(prefix="bench-data-"))  # fmt: skip
        self.delay = delay
        self.steps = 3
        self.piece_delay = 0.0  # seconds between streamed pieces (0: each reply at once)
        self.run_times: list[float] = []
        self.turn_spans: list[tuple[float, float]] = []  # (start, end) of each turn handler
        self._lock = threading.Lock()

    def make_agent(self) -> Any:
        from agents.loop.code_agent import CodeAgent
        from agents.models.scripted import ScriptedModel, ScriptedReply

        steps = self.steps
        replies = [ScriptedReply(step_reply(i, i == steps), delay=self.delay, chunk_size=12)
                   for i in range(1, steps + 1)]  # fmt: skip
        model = ScriptedModel(replies, loop=True, piece_delay=self.piece_delay)
        agent = CodeAgent([], model, executor_type=self.settings.executor,
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
        from smolui.app.gradio_ui import GradioUI
        from smolui.handlers.chat import ChatHandlers

        run_turn, spans = ChatHandlers.run_turn, self.turn_spans

        def timed_turn(handlers: Any, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            yield from run_turn(handlers, *args, **kwargs)
            spans.append((started, time.perf_counter()))

        ChatHandlers.run_turn = timed_turn  # measures when the server finished each turn
        self.ui = GradioUI(self.make_agent, settings=self.settings, model_label=lambda: "bench")
        self.ui.launch(prevent_thread_lock=True, quiet=True)
        return self


def server_only(app: BenchApp, sessions: int) -> tuple[float, float]:
    """One turn alone vs `sessions` at once, driven through the handlers in threads.

    Each conversation is opened the way a page load opens it (its agent is prepared in the
    background) a second before its message, as a visitor takes time to type.
    """
    from smolui.handlers.chat import ChatHandlers, HandlerConfig
    from smolui.sessions import SessionRegistry
    from smolui.uploads import UploadPolicy

    app.steps = 5
    registry = SessionRegistry(app.make_agent, app.settings.upload_folder, max_sessions=64)
    handlers = ChatHandlers(registry, HandlerConfig(policy=UploadPolicy(), max_steps=40))

    def opened(count: int) -> list[str]:
        sessions = [registry.open(None) for _ in range(count)]
        for session in sessions:
            session.prepare()  # as a page load does
        time.sleep(1.0)
        return [session.id for session in sessions]

    def turn(conversation_id: str) -> None:
        shown, pending = handlers.echo({"text": "a turn", "files": []}, [])
        for _ in handlers.run_turn(pending, shown, conversation_id):
            pass

    (alone,) = opened(1)
    started = time.perf_counter()
    turn(alone)
    one = time.perf_counter() - started
    threads = [threading.Thread(target=turn, args=(i,)) for i in opened(sessions)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    many = time.perf_counter() - started
    registry.close_all()
    return one, many


def answer(app: BenchApp, command: dict[str, Any]) -> Any:
    name = command.get("cmd")
    if name == "steps":
        app.steps = int(command["n"])
        return True
    if name == "piece_delay":
        app.piece_delay = float(command["s"])
        return True
    if name == "run_times":
        return list(app.run_times)
    if name == "spans":
        spans = list(app.turn_spans)
        app.turn_spans.clear()
        return spans
    if name == "server_only":
        return server_only(app, int(command["sessions"]))
    raise ValueError(f"unknown command {name!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--executor", default="sandbox", choices=["sandbox", "local"])
    parser.add_argument("--delay", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout = sys.stderr  # anything else printed must not mix with the replies
    app = BenchApp(args.executor, args.delay, args.concurrency).start()
    replies.write(json.dumps({"port": app.port}) + "\n")
    for line in sys.stdin:
        replies.write(json.dumps(answer(app, json.loads(line))) + "\n")
    app.ui.close()


if __name__ == "__main__":
    main()
