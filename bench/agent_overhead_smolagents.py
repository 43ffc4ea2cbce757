"""The smolagents side of `bench/agent_overhead.py`: the same scripts, on smolagents.

Run by `agent_overhead.py` with the interpreter of a separate virtual environment where
smolagents is installed; prints one JSON object (milliseconds) and nothing else.

    /opt/smolagents-venv/bin/python bench/agent_overhead_smolagents.py --steps 10 --repeats 20
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import uuid

from smolagents import CodeAgent, ToolCallingAgent, tool
from smolagents.memory import ActionStep, TaskStep
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    Model,
)
from smolagents.monitoring import TokenUsage


@tool
def noop(x: int) -> int:
    """Returns its input.

    Args:
        x: Any number.
    """
    return x


class Scripted(Model):
    """A zero-latency model: converts the messages as real backends do, then replies from a
    list. Records when each call starts and ends."""

    def __init__(self, replies: list[ChatMessage]):
        super().__init__(model_id="scripted")
        self.replies = iter(replies)
        self.entered: list[float] = []
        self.left: list[float] = []

    def generate(
        self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kwargs
    ):
        self.entered.append(time.perf_counter())
        self._prepare_completion_kwargs(
            messages, stop_sequences, response_format, tools_to_call_from
        )
        reply = next(self.replies)
        self.left.append(time.perf_counter())
        return reply


def _reply(content: str = "", call: tuple[str, dict] | None = None) -> ChatMessage:
    calls = None
    if call is not None:
        function = ChatMessageToolCallFunction(name=call[0], arguments=call[1])
        calls = [
            ChatMessageToolCall(
                function=function, id=f"call_{uuid.uuid4().hex[:12]}", type="function"
            )
        ]
    return ChatMessage(MessageRole.ASSISTANT, content, calls, token_usage=TokenUsage(0, 0))


def code_script(steps: int) -> list[ChatMessage]:
    body = [
        _reply(f"Thought: step {i}.\n<code>\ny = noop(x={i})\nprint(y)\n</code>")
        for i in range(steps - 1)
    ]
    return body + [_reply("Thought: done.\n<code>\nfinal_answer('done')\n</code>")]


def tool_script(steps: int) -> list[ChatMessage]:
    body = [_reply(call=("noop", {"x": i})) for i in range(steps - 1)]
    return body + [_reply(call=("final_answer", {"answer": "done"}))]


def run_once(agent, script: list[ChatMessage], reset: bool = True) -> tuple[list[float], Scripted]:
    agent.model = Scripted(script)
    agent.run("benchmark task", reset=reset)
    last_task = max(i for i, s in enumerate(agent.memory.steps) if isinstance(s, TaskStep))
    steps = [s for s in agent.memory.steps[last_task:] if isinstance(s, ActionStep)]
    return [s.timing.duration * 1000 for s in steps], agent.model


def per_step_ms(agent, script_for, steps: int, repeats: int) -> tuple[float, float]:
    """Median and first quartile of the step durations over `repeats` runs."""
    run_once(agent, script_for(steps))  # warm-up
    samples = []
    for _ in range(repeats):
        samples += run_once(agent, script_for(steps))[0]
    return statistics.median(samples), statistics.quantiles(samples, n=4)[0]


def gaps_ms(agent, steps: int, window: int, runs: int) -> tuple[float, float]:
    """Median time between model calls around step 10 and over the last steps of a run."""
    early, late = [], []
    for _ in range(runs):
        _, model = run_once(agent, tool_script(steps))
        gaps = [(model.entered[i] - model.left[i - 1]) * 1000 for i in range(1, steps)]
        early.append(statistics.median(gaps[8 - window // 2 : 8 + window // 2 + 1]))
        late.append(statistics.median(gaps[-window:]))
    return statistics.median(early), statistics.median(late)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--long", type=int, default=400)
    parser.add_argument("--window", type=int, default=5)
    parser.add_argument("--long-runs", type=int, default=3)
    args = parser.parse_args()
    code_agent = CodeAgent(
        tools=[noop], model=Scripted([]), verbosity_level=-1, max_steps=args.steps + 5
    )
    tool_agent = ToolCallingAgent(
        tools=[noop], model=Scripted([]), verbosity_level=-1, max_steps=args.long + 5
    )
    out = {}
    out["code_local"], out["code_local_p25"] = per_step_ms(
        code_agent, code_script, args.steps, args.repeats
    )
    out["tool"], out["tool_p25"] = per_step_ms(tool_agent, tool_script, args.steps, args.repeats)
    out["gap_early"], out["gap_late"] = gaps_ms(tool_agent, args.long, args.window, args.long_runs)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
