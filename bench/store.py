"""Conversation store: save cost per turn, time to resume a long conversation, browser bytes.

    python bench/store.py [--turns 100] [--repeats 3]

Prints, for SQLite (a file) and PostgreSQL (a real server started here when Debian's
`postgresql` is installed):
- save cost per turn (ms): memory to data (`MemorySnapshot`, as the app saves) + one
  `ConversationStore.save`, at the first and the last five turns (median over `--repeats`
  conversations), and the bytes each save sends to the database at turn 1 and the last turn
  (a figure the machine's load does not change); only the rows a turn changed are written;
- resume (ms): read the stored conversation and rebuild a fresh CodeAgent's memory from it;
- bytes of conversation state the browser sends per turn, before (the transcript store in
  `gr.BrowserState`, plus the chat as the after-turn input) and now (owner key and id).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.memory.io import steps_from_data  # noqa: E402
from agents.memory.steps import ActionStep, TaskStep, Timing  # noqa: E402
from agents.models.messages import ChatMessage, TokenUsage  # noqa: E402

CODE = "import math\nvalues = [math.sqrt(i) for i in range(20)]\nprint(sum(values))"


def turn_steps(index: int) -> list:
    """One turn's memory: the task and two code steps, as a CodeAgent records them."""
    steps: list = [TaskStep(f"Question {index}: compute the sum of square roots below 20.")]
    for number in (1, 2):
        text = (
            f"Thought: step {number} of turn {index}, I will compute it.\n<code>\n{CODE}\n</code>"
        )
        steps.append(ActionStep(
            step_number=number, timing=Timing(1.0, 1.5), model_output=text,
            model_output_message=ChatMessage("assistant", text), code_action=CODE,
            observations="Execution logs:\n57.21\nLast output from code snippet:\nNone",
            token_usage=TokenUsage(900 + 40 * index, 60), is_final_answer=number == 2,
            action_output=57.21 if number == 2 else None,
        ))  # fmt: skip
    return steps


def turn_messages(index: int) -> list[dict]:
    """One turn's chat as the page renders it: the question, two steps, the answer, a footer."""
    steps = [{"role": "assistant", "content": f"```python\n{CODE}\n```\n57.21",
              "metadata": {"title": f"Step {n} · ran code", "id": f"t{index}s{n}",
                           "status": "done", "duration": 0.5}} for n in (1, 2)]  # fmt: skip
    return [{"role": "user", "content": f"Question {index}: compute the sum of square roots."},
            *steps, {"role": "assistant", "content": "The sum is 57.21."},
            {"role": "assistant", "content": "<sub>2 steps · 2,000 tokens · 1.0 s</sub>"}]  # fmt: skip


class SentBytes:
    """Counts the bytes of statement parameters sent to the database (a figure the machine's
    load does not change)."""

    def __init__(self, engine) -> None:
        from sqlalchemy import event

        self.total = 0
        event.listen(engine, "before_cursor_execute", self.heard)

    def heard(self, _conn, _cursor, statement, parameters, _context, _many) -> None:
        # psycopg wraps JSON values (`Json`); count what they hold, as SQLite's strings are.
        text = json.dumps(parameters, default=lambda value: getattr(value, "obj", str(value)))
        self.total += len(statement) + len(text)


def save_costs(store, conversation: str, turns: int) -> tuple[list[float], list[int], list]:
    """Save each turn of one `turns`-turn conversation as the app does; the cost of each (ms)
    and the bytes each sent to the database."""
    from smolui.conversations.memory_snapshot import MemorySnapshot

    snapshot = MemorySnapshot()
    sent = SentBytes(store.engine)
    steps: list = []
    chat: list[dict] = []
    costs: list[float] = []
    sizes: list[int] = []
    for index in range(1, turns + 1):
        steps += turn_steps(index)
        chat += turn_messages(index)
        before = sent.total
        started = time.perf_counter()
        store.save("owner", conversation, folder="f", messages=list(chat),
                   memory=snapshot.data(steps), turn_state="done")  # fmt: skip
        costs.append((time.perf_counter() - started) * 1000)
        sizes.append(sent.total - before)
    return costs, sizes, steps


def measure(url: str | None, turns: int, repeats: int = 3) -> dict[str, float]:
    """Save every turn of `repeats` conversations of `turns` turns, then resume one; returns
    timings (ms)."""
    from agents.loop.code_agent import CodeAgent
    from agents.models.scripted import ScriptedModel
    from smolui.store import open_store

    store = open_store(tempfile.mkdtemp(prefix="bench-store-"), url)
    runs = [save_costs(store, f"conversation{n}", turns) for n in range(repeats)]
    steps = runs[-1][2]
    # Median over the repeats and a window of 5 turns: one save is a few ms on a busy machine.
    first = [run[0][i] for run in runs for i in range(min(5, turns))]
    last = [run[0][i] for run in runs for i in range(max(0, turns - 5), turns)]
    per_turn = [statistics.median(run[0][i] for run in runs) for i in range(turns)]
    resumes = []
    for _ in range(5):
        agent = CodeAgent([], ScriptedModel([]), executor_type="local", verbosity_level=-1)
        started = time.perf_counter()
        record = store.get("owner", f"conversation{repeats - 1}")
        agent.restore_memory(steps_from_data(record.memory))
        resumes.append((time.perf_counter() - started) * 1000)
        assert len(agent.memory.steps) == len(steps)
    store.close()
    return {"save_first": statistics.median(first), "save_last": statistics.median(last),
            "save_mean": statistics.mean(per_turn), "bytes_first": runs[0][1][0],
            "bytes_last": runs[0][1][-1], "resume": statistics.median(resumes)}  # fmt: skip


def browser_bytes(turns: int) -> tuple[int, int, int]:
    """Conversation-state bytes sent by the browser in the turn `turns`: before, now, and the
    chat itself (still the turn's input, before and now)."""
    chat = [m for index in range(1, turns + 1) for m in turn_messages(index)]
    # Before: the browser kept {"current", "conversations": [{"id", "title", "updated",
    # "messages"}]} (at most the last 400 messages) and sent it, with the chat, to the
    # after-turn handler.
    store = {"current": "x" * 22, "conversations": [
        {"id": "x" * 22, "title": "Question 1", "updated": 1.0, "messages": chat[-400:]}]}  # fmt: skip
    before = len(json.dumps(store)) + len(json.dumps(chat))
    now = len(json.dumps({"owner": "o" * 43, "current": "x" * 22}))
    return before, now, len(json.dumps(chat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3, help="conversations per database")
    arguments = parser.parse_args()
    turns = arguments.turns
    targets: list[tuple[str, str | None]] = [("SQLite", None)]
    server = None
    try:
        from tests.postgres import PostgresServer, postgres_bin

        if postgres_bin() is not None:
            server = PostgresServer().start()
            targets.append(("PostgreSQL", server.create_database()))
        for name, url in targets:
            figures = measure(url, turns, arguments.repeats)
            print(f"{name:10s} save per turn: {figures['save_first']:.1f} ms at turns 1-5, "
                  f"{figures['save_last']:.1f} ms at turns {turns - 4}-{turns} "
                  f"(mean {figures['save_mean']:.1f} ms); sent to the database: "
                  f"{figures['bytes_first']:,} bytes at turn 1, {figures['bytes_last']:,} at "
                  f"turn {turns}; resume a {turns}-turn conversation: {figures['resume']:.1f} ms")  # fmt: skip
    finally:
        if server is not None:
            server.stop()
    for count in sorted({1, 10, turns}):
        before, now, chat = browser_bytes(count)
        print(f"browser sends per turn at turn {count}: conversation state {before:,} bytes "
              f"before -> {now} bytes now (plus the chat as the turn's input, both: "
              f"{chat:,} bytes)")  # fmt: skip


if __name__ == "__main__":
    main()
