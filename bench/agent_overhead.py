"""Framework overhead per agent step, with a zero-latency ScriptedModel.

Prints the median milliseconds per step (over repeats) for CodeAgent and ToolCallingAgent,
so the figure is the loop's own cost: memory -> messages -> parse -> execute -> record.

    python bench/agent_overhead.py [--steps 10] [--repeats 20] [--executor local]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import CodeAgent, ScriptedModel, ScriptedReply, ToolCallingAgent  # noqa: E402
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
    return body + ["Thought: done.\n<code>\nfinal_answer(y)\n</code>"]


def tool_script(steps: int) -> list[ScriptedReply]:
    body = [ScriptedReply(tool_calls=[("noop", {"x": i})]) for i in range(steps - 1)]
    return body + [ScriptedReply(tool_calls=[("final_answer", {"answer": "done"})])]


def per_step_ms(make_agent, steps: int, repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        agent = make_agent()
        start = time.perf_counter()
        agent.run("benchmark task")
        samples.append((time.perf_counter() - start) * 1000 / steps)
        agent.close()
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--executor", default="local", help="executor_type for CodeAgent")
    args = parser.parse_args()

    def code_agent():
        model = ScriptedModel(code_script(args.steps))
        return CodeAgent(tools=[noop], model=model, executor_type=args.executor, verbosity_level=-1)

    def tool_agent():
        model = ScriptedModel(tool_script(args.steps))
        return ToolCallingAgent(tools=[noop], model=model, verbosity_level=-1)

    print(
        f"Agent overhead per step ({args.steps}-step runs, {args.repeats} repeats, zero-latency model)"
    )
    for label, factory in (("CodeAgent", code_agent), ("ToolCallingAgent", tool_agent)):
        per_step_ms(factory, args.steps, 2)  # warm-up
        samples = per_step_ms(factory, args.steps, args.repeats)
        print(
            f"  {label:<17} median {statistics.median(samples):6.3f} ms/step "
            f"(min {min(samples):.3f}, max {max(samples):.3f})"
        )
    if args.executor == "local":
        print("  (CodeAgent with the in-process executor; pass --executor sandbox for the sandbox)")


if __name__ == "__main__":
    main()
