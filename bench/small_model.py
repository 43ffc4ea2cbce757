"""The offline model on simple tasks, with the small-model profile and without it, side by side.

    python bench/small_model.py [--limit N] [--baseline-limit N] [--modes profile,baseline]
                                [--max-steps 4] [--threads N] [--executor sandbox|local] [--show]
                                [--kind dates,units] [--agent code|tool] [--match TEXT]
                                [--drafts N] [--model smollm2-135m|gemma3-270m|llamacpp:PATH]
                                [--spread N]
                                [--set main|held-out|fresh|...|fresh-5|docs-tables-1|loops[,...]]

Runs every task of `bench/small_model_tasks.py` (and `bench/bundled_tasks.py`) as the app
would: the bundled SmolLM2-135M (or `--model`, see `bench/bundled_models.py`) through
llama.cpp, a fresh CodeAgent per task with the document tools of its own upload folder,
attached files stored and announced by the app's upload code, code run in the sandbox (`--agent tool`: a ToolCallingAgent with the same tools and a `python_interpreter`
tool; with the profile its calls are constrained to valid JSON calls of its tools). Prints
one line per task (with, per step, what its drafts did: "3>2" three drafts, the second ran;
"+t" its code came from the thought; `--drafts 1` turns the vote off), then per mode: tasks
right, median, p90 and worst seconds per task (wall clock, and CPU seconds of this process: on
a machine shared with other work the CPU time is what the task would take alone on one core),
and steps per task; and for the model its load time, peak memory, GGUF size on disk and the
machine's load average. Mode `auto` lets the agent choose the profile by model, as the app does.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.bundled_models import build_model, disk_mb, load_average, peak_rss_mb  # noqa: E402
from bench.bundled_tasks import DOCS_TABLES_1  # noqa: E402
from bench.small_model_loops import LOOPS  # noqa: E402
from bench.small_model_tasks import (  # noqa: E402
    FRESH,
    FRESH_2,
    FRESH_3,
    FRESH_4,
    FRESH_5,
    HELD_OUT,
    TASKS,
    BenchTask,
)

TASK_SETS = {
    "main": TASKS,
    "held-out": HELD_OUT,
    "fresh": FRESH,
    "fresh-2": FRESH_2,
    "fresh-3": FRESH_3,
    "fresh-4": FRESH_4,
    "fresh-5": FRESH_5,
    "docs-tables-1": DOCS_TABLES_1,
    "loops": LOOPS,
}

MODES = {"profile": True, "baseline": False, "auto": None}
_DRAFTS = re.compile(r"drafts of this step: (\d+) written .*; draft (\d+) runs")


@dataclass
class Outcome:
    """What one task run gave."""

    right: bool
    seconds: float
    cpu_seconds: float
    steps: int
    answer: Any
    error: str | None = None
    outputs: list[str] = field(default_factory=list)
    votes: list[str] = field(default_factory=list)


def run_task(
    model: Any, task: BenchTask, small_model: bool | None, args: argparse.Namespace
) -> Outcome:
    """Run one task with a fresh agent, as one chat message in a new conversation."""
    from agents.errors import AgentError
    from agents.memory.steps import ActionStep
    from agents.observability.console import LogLevel
    from agents.small_model.profile import SmallModelProfile
    from tools.python_interpreter import PythonInterpreterTool
    from tools.toolbox import app_tools

    with tempfile.TemporaryDirectory(prefix="bench-small-") as tmp:
        folder = Path(tmp) / "uploads"
        folder.mkdir(mode=0o700)  # as the app makes an upload folder (smolui/uploads/folders.py)
        text = _attach(task, Path(tmp), folder)
        executor_kwargs = {"read_only_paths": [str(folder)]} if args.executor == "sandbox" else {}
        profile: Any = small_model
        if small_model:
            profile = SmallModelProfile(**({"drafts": args.drafts} if args.drafts else {}))
        options = dict(max_steps=args.max_steps, small_model=profile)
        options["verbosity_level"] = LogLevel.OFF
        agent = _agent(model, app_tools(folder), args, executor_kwargs, options)  # as the app's
        start, cpu_start = time.perf_counter(), time.process_time()
        answer, error = None, None
        try:
            answer = agent.run(text)
        except AgentError as err:
            error = f"{type(err).__name__}: {err}"
        seconds = time.perf_counter() - start
        cpu_seconds = time.process_time() - cpu_start
        actions = [step for step in agent.memory.steps if isinstance(step, ActionStep)]
        agent.close()
        for tool in agent.tools.values():
            if isinstance(tool, PythonInterpreterTool):
                tool.close()
    right = task.is_right(answer) and error is None
    outputs = [_shown(step) for step in actions]
    outcome = Outcome(right, seconds, cpu_seconds, len(actions), answer, error, outputs)
    outcome.votes = [_vote_of(step) for step in actions]
    return outcome


def _vote_of(step: Any) -> str:
    """What the drafts did in a step, in a few characters: "3>2" (3 drafts, the 2nd ran),
    "+t" when the code came from the thought; "" without drafts."""
    found = _DRAFTS.search(step.observations or "")
    if found is None:
        return ""
    thought = "+t" if "thought spells out" in (step.observations or "") else ""
    return f"{found.group(1)}>{found.group(2)}{thought}"


def _shown(step: Any) -> str:
    """A step for `--show`: what the model wrote, then its error or observations (short)."""
    outcome = str(step.error.message) if step.error is not None else step.observations or ""
    return f"{step.model_output or ''}\n=> {outcome.strip()[:300]}"


def _agent(
    model: Any,
    tools: list[Any],
    args: argparse.Namespace,
    executor_kwargs: dict[str, Any],
    options: dict[str, Any],
) -> Any:
    """A CodeAgent, or with `--agent tool` a ToolCallingAgent that runs Python through a tool."""
    if args.agent == "tool":
        from agents.loop.tool_calling_agent import ToolCallingAgent
        from tools.python_interpreter import PythonInterpreterTool

        python = PythonInterpreterTool(executor_type=args.executor, executor_kwargs=executor_kwargs)
        return ToolCallingAgent([*tools, python], model, **options)
    from agents.loop.code_agent import CodeAgent

    return CodeAgent(
        tools, model, executor_type=args.executor, executor_kwargs=executor_kwargs, **options
    )


def _attach(task: BenchTask, tmp: Path, folder: Path) -> str:
    """Store the task's files as the app stores an upload; return the task as the agent sees it."""
    if not task.uploads:
        return task.text
    from smolui.uploads.ingest import ingest

    incoming = []
    for name, content in task.uploads:
        path = tmp / f"incoming-{name}"
        if callable(content):  # a builder of tests/samples.py writes a PDF, DOCX, XLSX...
            content(path)
        else:
            path.write_text(content, encoding="utf-8")
        incoming.append((name, path))
    return ingest(incoming, folder, images_to_model=False).task(task.text)


def summary(outcomes: list[Outcome]) -> dict[str, str]:
    """The figures of one mode, formatted."""
    right = sum(o.right for o in outcomes)
    seconds = [o.seconds for o in outcomes]
    p90 = (
        statistics.quantiles(seconds, n=10, method="inclusive")[-1]
        if len(seconds) > 1
        else seconds[0]
    )
    return {
        "tasks right": f"{right}/{len(outcomes)} ({100 * right / len(outcomes):.0f}%)",
        "median s/task": f"{statistics.median(seconds):.1f}",
        "p90 s/task": f"{p90:.1f}",
        "worst s/task": f"{max(seconds):.1f}",
        "median CPU s/task": f"{statistics.median(o.cpu_seconds for o in outcomes):.1f}",
        "worst CPU s/task": f"{max(o.cpu_seconds for o in outcomes):.1f}",
        "steps/task (mean)": f"{statistics.mean(o.steps for o in outcomes):.2f}",
        "steps/task (max)": str(max(o.steps for o in outcomes)),
    }


def print_table(results: dict[str, list[Outcome]], title: str = "") -> None:
    """One table: a column per mode, with the memory and the machine's load at its end."""
    modes = list(results)
    rows = {mode: summary(outcomes) for mode, outcomes in results.items()}
    print(f"\n{title:<20}" + "".join(f"{mode:>22}" for mode in modes))
    for label in next(iter(rows.values())):
        print(f"{label:<20}" + "".join(f"{rows[mode][label]:>22}" for mode in modes))
    print(f"{'peak RSS MB':<20}{peak_rss_mb():>22.0f}    ({load_average()})")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="run only the first N tasks")
    parser.add_argument(
        "--baseline-limit", type=int, default=None, help="run the baseline on the first N only"
    )
    parser.add_argument(
        "--modes", default="profile,baseline", help="profile, baseline, auto (as the app)"
    )
    parser.add_argument("--max-steps", type=int, default=4)
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads")
    parser.add_argument("--executor", default="sandbox", choices=("sandbox", "local"))
    parser.add_argument("--show", action="store_true", help="print the steps of wrong answers")
    parser.add_argument("--kind", default="", help="only these kinds of task, e.g. dates,units")
    parser.add_argument("--agent", default="code", choices=("code", "tool"), help="agent type")
    parser.add_argument("--match", default="", help="only tasks whose text contains this")
    parser.add_argument(
        "--spread", type=int, default=None, help="run N tasks spread evenly over each set"
    )
    parser.add_argument(
        "--drafts",
        type=int,
        default=None,
        help="most drafts per step the profile votes on (1: no vote; default: the profile's)",
    )
    parser.add_argument(
        "--model",
        default="smollm2-135m",
        help="a bundled model (smollm2-135m, gemma3-270m) or llamacpp:/path/file.gguf",
    )
    parser.add_argument(
        "--set",
        default="main",
        help="the main task set, tasks written after the example bank (held-out), tasks "
        "never used for tuning (fresh; fresh-2 to fresh-5 for later changes), or the frozen "
        "document and table questions that chose the bundled model (docs-tables-1), quantities "
        "worked out by a loop (loops, bench/small_model_loops.py); several "
        "joined by commas run one after the other, with a table each",
    )
    args = parser.parse_args()
    args.sets = [name.strip() for name in args.set.split(",") if name.strip()]
    unknown = [name for name in args.sets if name not in TASK_SETS]
    if unknown or not args.sets:
        parser.error(f"--set: unknown {unknown}; choose from {', '.join(TASK_SETS)}")
    args.mode_names = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not args.mode_names or any(mode not in MODES for mode in args.mode_names):
        parser.error(f"--modes: choose from {', '.join(MODES)}")
    return args


def _tasks(name: str, args: argparse.Namespace) -> list[BenchTask]:
    tasks = [t for t in TASK_SETS[name] if not args.kind or t.kind in args.kind.split(",")]
    tasks = [task for task in tasks if args.match.lower() in task.text.lower()]
    if args.spread and args.spread < len(tasks):
        # Every kind of a set, in a few tasks, when the machine has no time for all of them.
        tasks = [tasks[i * len(tasks) // args.spread] for i in range(args.spread)]
    return tasks[: args.limit] if args.limit else tasks


def _run_mode(model: Any, mode: str, tasks: list[BenchTask], args: argparse.Namespace) -> list:
    outcomes = []
    limit = args.baseline_limit if mode == "baseline" and args.baseline_limit else None
    for task in tasks[:limit]:
        outcome = run_task(model, task, MODES[mode], args)
        outcomes.append(outcome)
        shown = outcome.error or repr(outcome.answer)
        print(
            f"[{mode}] {'right' if outcome.right else 'WRONG'} {outcome.seconds:5.1f} s "
            f"({outcome.cpu_seconds:4.1f} CPU s) "
            f"{outcome.steps} step(s) {' '.join(filter(None, outcome.votes)):<9} "
            f"{task.text[:60]!r} -> {shown[:80]}",
            flush=True,
        )
        if args.show and not outcome.right:
            for output in outcome.outputs:
                print("      | " + output.replace("\n", "\n      | "))
    return outcomes


def main() -> None:
    args = _arguments()
    print(f"before loading: {load_average()}", flush=True)
    from agents.errors import AgentConfigError

    try:
        model, load_seconds = build_model(args.model, args.threads)
    except AgentConfigError as error:
        sys.exit(f"--model {args.model}: {error}")
    print(
        f"model {model.model_id} ({args.model}): loaded in {load_seconds:.1f} s, "
        f"{disk_mb(args.model)} MB of GGUF on disk, peak RSS {peak_rss_mb():.0f} MB after "
        f"loading; max {args.max_steps} steps, executor {args.executor}, {args.agent} agent",
        flush=True,
    )
    for name in args.sets:
        tasks = _tasks(name, args)
        print(f"\nset {name}: {len(tasks)} tasks", flush=True)
        results = {mode: _run_mode(model, mode, tasks, args) for mode in args.mode_names}
        print_table(results, title=f"{args.model} {name}")


if __name__ == "__main__":
    main()
