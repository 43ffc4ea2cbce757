"""Framework overhead per agent step, with a zero-latency ScriptedModel.

Prints the median milliseconds per step (over repeats) for CodeAgent and ToolCallingAgent,
so the figure is the loop's own cost: memory -> messages -> parse -> execute -> record.

    python bench/agent_overhead.py [--steps 10] [--repeats 20] [--executor sandbox|local]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import ActionStep, CodeAgent, ScriptedModel, ScriptedReply, ToolCallingAgent  # noqa: E402
from tools import tool  # noqa: E402


@tool
def noop(x: int) -> int:
    """Returns its input.

    Args:
        x: Any number.
    """
    return x


def code_script(steps: int) -> list[str]:
    body = [
        f"Thought: step {i}.\n<code>\ny = noop(x={i})\nprint(y)\n</code>" for i in range(steps - 1)
    ]
    return body + ["Thought: done.\n<code>\nfinal_answer('done')\n</code>"]


def tool_script(steps: int) -> list[ScriptedReply]:
    body = [ScriptedReply(tool_calls=[("noop", {"x": i})]) for i in range(steps - 1)]
    return body + [ScriptedReply(tool_calls=[("final_answer", {"answer": "done"})])]


def step_durations_ms(agent, script) -> tuple[list[float], float]:
    """Run once; return each step's duration and the whole run's wall time (ms)."""
    agent.model = ScriptedModel(script)
    start = time.perf_counter()
    agent.run("benchmark task")
    wall = (time.perf_counter() - start) * 1000
    steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    return [s.timing.duration * 1000 for s in steps], wall


def measure(agent, script_for, steps: int, repeats: int) -> tuple[list[float], list[float]]:
    """Per-step durations (the model takes no time, so a step is all overhead) and run walls."""
    step_durations_ms(agent, script_for(steps))  # warm-up: worker started, caches filled
    per_step, per_run = [], []
    for _ in range(repeats):
        durations, wall = step_durations_ms(agent, script_for(steps))
        per_step += durations
        per_run.append(wall)
    return per_step, per_run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--executor", default="sandbox", help="executor_type for CodeAgent")
    args = parser.parse_args()
    code_agent = CodeAgent(
        tools=[noop], model=ScriptedModel([]), executor_type=args.executor, verbosity_level=0
    )
    tool_agent = ToolCallingAgent(tools=[noop], model=ScriptedModel([]), verbosity_level=0)
    print(
        f"Agent overhead per step: median step duration over {args.repeats} runs of "
        f"{args.steps} steps, zero-latency ScriptedModel (so a step is all framework + executor)"
    )
    runs = (
        (f"CodeAgent ({args.executor})", code_agent, code_script),
        ("ToolCallingAgent", tool_agent, tool_script),
    )
    for label, agent, script_for in runs:
        per_step, per_run = measure(agent, script_for, args.steps, args.repeats)
        print(
            f"  {label:<20} {statistics.median(per_step):6.3f} ms/step "
            f"(quartiles {_q(per_step, 0):.3f}-{_q(per_step, 2):.3f}); "
            f"whole {args.steps}-step run {statistics.median(per_run):.1f} ms "
            "(includes resetting the executor)"
        )
        agent.close()


def _q(samples: list[float], index: int) -> float:
    return statistics.quantiles(samples, n=4)[index]


if __name__ == "__main__":
    main()
