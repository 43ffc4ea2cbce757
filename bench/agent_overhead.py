"""Framework overhead per agent step, with a zero-latency ScriptedModel and quiet output.

Prints, with the machine's load average next to the figures:
- the median (and first quartile) milliseconds per step for CodeAgent (sandbox and local
  executors) and ToolCallingAgent, over repeated short runs: the model takes no time, so a
  step is all framework (memory -> messages -> parse -> execute -> record) and executor;
  for CodeAgent also the executor alone running the same snippet, and the sandbox steps
  again with no wait for the spare interpreter (see `per_step_ms`);
- for one long ToolCallingAgent run, the time between model calls (from one `generate`
  returning to the next one starting) around step 10 and over the last steps, and their
  ratio: a flat per-step cost keeps it near 1;
- the same figures for smolagents on the same scripts, when it is installed in a separate
  virtual environment (`--smolagents-python`, default /opt/smolagents-venv/bin/python);
  that column is left out otherwise.

    python bench/agent_overhead.py [--steps 10] [--repeats 20] [--long 400]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import (  # noqa: E402
    ActionStep,
    ChatMessage,
    CodeAgent,
    Model,
    ScriptedModel,
    ScriptedReply,
    TaskStep,
    ToolCallingAgent,
)
from agents.executors.sandbox import SandboxExecutor  # noqa: E402
from agents.executors.sandbox.spawn import SPARES  # noqa: E402
from agents.models.messages import ChatMessageToolCall, ToolCallFunction  # noqa: E402
from tools import tool  # noqa: E402

SMOLAGENTS_PYTHON = "/opt/smolagents-venv/bin/python"


@tool
def noop(x: int) -> int:
    """Returns its input.

    Args:
        x: Any number.
    """
    return x


class _NoTranscript(list):
    """Keeps nothing: a long run's prompts would otherwise all stay in memory."""

    def append(self, item: object) -> None:
        pass


class TimedModel(ScriptedModel):
    """A zero-latency ScriptedModel that records when each `generate` starts and ends."""

    def __init__(self, replies: list) -> None:
        super().__init__(replies)
        self.calls = _NoTranscript()
        self.call_kwargs = _NoTranscript()
        self.entered: list[float] = []
        self.left: list[float] = []

    def generate(self, *args, **kwargs):
        self.entered.append(time.perf_counter())
        try:
            return super().generate(*args, **kwargs)
        finally:
            self.left.append(time.perf_counter())


class ReplayModel(Model):
    """Replies from a list without looking at the prompt: no message conversion, no token
    count. Isolates the agent's own time between calls from what a backend does inside."""

    def __init__(self, replies: list[ScriptedReply]) -> None:
        super().__init__(model_id="replay")
        self.replies = iter(replies)
        self.entered: list[float] = []
        self.left: list[float] = []

    def generate(self, messages, stop_sequences=None, response_format=None, **kwargs):
        self.entered.append(time.perf_counter())
        reply = next(self.replies)
        calls = [ChatMessageToolCall(ToolCallFunction(n, a)) for n, a in reply.tool_calls]
        message = ChatMessage(role="assistant", content=reply.content, tool_calls=calls or None)
        self.left.append(time.perf_counter())
        return message


def code_script(steps: int) -> list[str]:
    body = [
        f"Thought: step {i}.\n<code>\ny = noop(x={i})\nprint(y)\n</code>" for i in range(steps - 1)
    ]
    return body + ["Thought: done.\n<code>\nfinal_answer('done')\n</code>"]


def tool_script(steps: int) -> list[ScriptedReply]:
    body = [ScriptedReply(tool_calls=[("noop", {"x": i})]) for i in range(steps - 1)]
    return body + [ScriptedReply(tool_calls=[("final_answer", {"answer": "done"})])]


def run_once(
    agent, script, model_class=TimedModel, reset: bool = True
) -> tuple[list[float], TimedModel]:
    """Run once; return each step's duration (ms) and the model, with its call times."""
    agent.model = model_class(script)
    agent.run("benchmark task", reset=reset)
    last_task = max(i for i, s in enumerate(agent.memory.steps) if isinstance(s, TaskStep))
    steps = [s for s in agent.memory.steps[last_task:] if isinstance(s, ActionStep)]
    return [s.timing.duration * 1000 for s in steps], agent.model


def per_step_ms(agent, script_for, steps: int, repeats: int, settle: bool = True) -> list[float]:
    """Step durations over `repeats` runs, after one warm-up run. Each run is a new
    conversation whose worker is started before it, as the app's warm-up does when a page
    opens: a step's figure does not include starting a process. That includes the spare
    interpreter the sandbox starts in the background when it hands its spare to a new
    worker (70-120 ms of CPU): in the app it starts while the model writes the first step;
    with a zero-latency model it would share the two CPUs with the steps being timed
    (`settle=False` times them so, for comparison)."""
    run_once(agent, script_for(steps))
    samples: list[float] = []
    for _ in range(repeats):
        agent.reset()
        if agent.executor is not None:
            agent.executor.start()
            if settle:
                _wait_for_spare(agent.executor)
        samples += run_once(agent, script_for(steps), reset=False)[0]
    return samples


def _wait_for_spare(executor, timeout: float = 10.0) -> None:
    """Until the sandbox's spare interpreter is ready again (sandbox executors only)."""
    if isinstance(executor, SandboxExecutor) and executor.spare_worker:
        deadline = time.monotonic() + timeout
        while not SPARES.ready() and time.monotonic() < deadline:
            time.sleep(0.01)


def executor_call_ms(executor, calls: int) -> float:
    """Median wall time of the executor alone running one step's code (the same snippet)."""
    samples = []
    for i in range(calls):
        start = time.perf_counter()
        executor(f"y = noop(x={i})\nprint(y)")
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def gaps_ms(agent, steps: int, window: int, runs: int, model_class=TimedModel) -> tuple:
    """Median time between model calls around step 10, and over the last `window` steps
    (medians over `runs` long runs)."""
    early, late = [], []
    for _ in range(runs):
        _, model = run_once(agent, tool_script(steps), model_class)
        gaps = [(model.entered[i] - model.left[i - 1]) * 1000 for i in range(1, steps)]
        early.append(statistics.median(gaps[8 - window // 2 : 8 + window // 2 + 1]))
        late.append(statistics.median(gaps[-window:]))
    return statistics.median(early), statistics.median(late)


def smolagents_figures(python: str, args: argparse.Namespace) -> dict[str, float] | None:
    """The same figures measured on smolagents, or None when it is not installed."""
    if not os.path.exists(python):
        return None
    script = Path(__file__).with_name("agent_overhead_smolagents.py")
    command = [python, str(script), "--steps", str(args.steps), "--repeats", str(args.repeats)]
    command += ["--long", str(args.long), "--window", str(args.window)]
    command += ["--long-runs", str(args.long_runs)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    if done.returncode != 0:
        print(f"(smolagents column skipped: {done.stderr.strip().splitlines()[-1:]})")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10, help="steps per short run")
    parser.add_argument("--repeats", type=int, default=20, help="short runs per agent")
    parser.add_argument("--long", type=int, default=400, help="steps of the long run")
    parser.add_argument("--window", type=int, default=5, help="steps per gap median")
    parser.add_argument("--long-runs", type=int, default=3, help="long runs (median)")
    parser.add_argument("--smolagents-python", default=SMOLAGENTS_PYTHON)
    args = parser.parse_args()
    ours = measure(args)
    theirs = smolagents_figures(args.smolagents_python, args)
    report(ours, theirs, args)


def measure(args: argparse.Namespace) -> dict[str, float]:
    """This project's figures (ms)."""
    out = {}
    for key, executor in (("code_sandbox", "sandbox"), ("code_local", "local")):
        agent = CodeAgent(
            tools=[noop], model=ScriptedModel([]), executor_type=executor, verbosity_level=0
        )
        out[key], out[key + "_p25"] = _median_p25(
            per_step_ms(agent, code_script, args.steps, args.repeats)
        )
        out[key + "_call"] = executor_call_ms(agent.executor, args.steps * args.repeats)
        if executor == "sandbox":
            out[key + "_busy"], _ = _median_p25(
                per_step_ms(agent, code_script, args.steps, args.repeats, settle=False)
            )
        agent.close()
    agent = ToolCallingAgent(
        tools=[noop], model=ScriptedModel([]), verbosity_level=0, max_steps=args.long + 5
    )
    out["tool"], out["tool_p25"] = _median_p25(
        per_step_ms(agent, tool_script, args.steps, args.repeats)
    )
    out["gap_early"], out["gap_late"] = gaps_ms(agent, args.long, args.window, args.long_runs)
    out["own_early"], out["own_late"] = gaps_ms(
        agent, args.long, args.window, args.long_runs, ReplayModel
    )
    return out


def _median_p25(samples: list[float]) -> tuple[float, float]:
    return statistics.median(samples), statistics.quantiles(samples, n=4)[0]


def report(ours: dict[str, float], theirs: dict[str, float] | None, args) -> None:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"Agent overhead, zero-latency scripted model, quiet output (load average {load}, "
        f"{os.cpu_count()} CPUs)\nms per step: median over {args.repeats} runs of "
        f"{args.steps} steps"
    )
    rows = [
        ("CodeAgent, sandbox executor", "code_sandbox", "code_local"),
        ("CodeAgent, local executor", "code_local", "code_local"),
        ("ToolCallingAgent", "tool", "tool"),
        (f"{args.long}-step run: gap at step 10", "gap_early", "gap_early"),
        (f"{args.long}-step run: gap at step {args.long}", "gap_late", "gap_late"),
    ]
    header = f"  {'':<36} {'this project':>13}"
    print(header + (f" {'smolagents':>11}" if theirs else ""))
    for label, key, their_key in rows:
        line = f"  {label:<36} {ours[key]:10.3f} ms"
        if theirs:
            line += f" {theirs[their_key]:8.3f} ms"
        if key + "_p25" in ours:  # the quieter quarter of the steps, less hit by load
            line += f"   p25 {ours[key + '_p25']:.3f}"
            line += f" / {theirs[their_key + '_p25']:.3f}" if theirs else ""
            line += " (smolagents: local executor)" if theirs and key == "code_sandbox" else ""
        print(line)
        if key + "_call" in ours:
            print(f"    {'its executor alone, same snippet':<34} {ours[key + '_call']:10.3f} ms")
        if key + "_busy" in ours:
            print(f"    {'while the next spare starts':<34} {ours[key + '_busy']:10.3f} ms")
    ratio = ours["gap_late"] / ours["gap_early"]
    line = f"  {'ratio step ' + str(args.long) + ' / step 10':<36} {ratio:10.2f}"
    if theirs:
        line += f" {theirs['gap_late'] / theirs['gap_early']:11.2f}"
    print(line)
    own = ours["own_late"] / ours["own_early"]
    print(
        f"  {'same, model that converts nothing':<36} {own:10.2f}   "
        f"({ours['own_early']:.3f} -> {ours['own_late']:.3f} ms)"
    )
    print(
        "  gap = time between model calls: from one generate() returning to the next one "
        f"starting (median of {args.window} steps, median of {args.long_runs} runs). The "
        "scripted model converts the whole prompt inside generate(), as backends do; the "
        "last line replays replies without reading the prompt: the agent's own time alone."
    )


if __name__ == "__main__":
    main()
