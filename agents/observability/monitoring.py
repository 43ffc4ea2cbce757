"""smolagents' monitoring names: `AgentLogger`, `Monitor`, `Timing`, `TokenUsage`, `LogLevel`.

The console logger is one consumer of the agent's events (`agents.observability.console`); `AgentLogger`
adds the `log_*` methods smolagents scripts call. `Monitor` totals the tokens and durations
of memory steps.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

from agents.memory.steps import ActionStep, MemoryStep, PlanningStep, Timing
from agents.models.messages import ChatMessage, TokenUsage
from agents.observability.console import RULE, ConsoleLogger, LogLevel


class AgentLogger(ConsoleLogger):
    """A console logger with smolagents' `log_*` methods.

    Args:
        level: A `LogLevel` or int (-1 off, 0 errors, 1 steps, 2 debug).
        console: Anything with a `print(text)` method (e.g. a `rich.console.Console`);
            when given, text goes there instead of to `stream`.
        stream: Where to write when no console is given (stdout by default).
    """

    def __init__(
        self, level: int = LogLevel.INFO, console: Any = None, stream: TextIO | None = None
    ):
        super().__init__(level, stream)
        self.console = console

    def _write(self, text: str) -> None:
        if self.console is None:
            super()._write(text)
        else:
            self.console.print(text)

    def log_error(self, error_message: str) -> None:
        """Write an error (shown unless the level is OFF)."""
        self.log(f"Error: {error_message}", level=LogLevel.ERROR)

    def log_markdown(
        self, content: str, title: str | None = None, level: int = LogLevel.INFO, **_: Any
    ) -> None:
        """Write a titled block of text."""
        self.log(f"{title}\n{content}" if title else content, level=level)

    def log_code(self, title: str, content: str, level: int = LogLevel.INFO) -> None:
        """Write code under a title, indented."""
        body = "\n".join("  " + line for line in content.splitlines())
        self.log(f"{title}\n{body}", level=level)

    def log_rule(self, title: str, level: int = LogLevel.INFO) -> None:
        """Write a separator line with a title."""
        self.log(f"{RULE[:4]} {title} {RULE[: 60 - len(title)]}", level=level)

    def log_task(
        self, content: str, subtitle: str, title: str | None = None, level: int = LogLevel.INFO
    ) -> None:
        """Write a new task, with the model's name as subtitle."""
        head = f"New run - {title}" if title else "New run"
        self.log(f"{RULE}\n{head}\n{content.strip()}\n{subtitle}\n{RULE}", level=level)

    def log_messages(
        self, messages: Iterable[ChatMessage | dict], level: int = LogLevel.DEBUG
    ) -> None:
        """Write chat messages, one JSON object each."""
        for message in messages:
            data = message.dict() if isinstance(message, ChatMessage) else message
            self.log(json.dumps(data, default=str, indent=2), level=level)

    def visualize_agent_tree(self, agent: Any) -> None:
        """Write the tree of an agent, its tools and managed agents."""
        from agents.observability.tree import agent_tree

        self.log(agent_tree(agent), level=LogLevel.ERROR)


class Monitor:
    """Totals of tokens and step durations, fed one memory step at a time.

    Args:
        tracked_model: The model whose calls are counted (kept for reference).
        logger: Where step summaries would go (kept for reference; the console logger
            already prints them from the event stream).
    """

    def __init__(self, tracked_model: Any = None, logger: Any = None):
        self.tracked_model = tracked_model
        self.logger = logger
        self.reset()

    def reset(self) -> None:
        """Forget all totals."""
        self.step_durations: list[float] = []
        self.total_input_token_count = 0
        self.total_output_token_count = 0

    def update_metrics(self, step_log: MemoryStep) -> None:
        """Add one step's duration and tokens (usable as a step callback).

        Args:
            step_log: An `ActionStep` or `PlanningStep`.
        """
        if not isinstance(step_log, (ActionStep, PlanningStep)):
            return  # task and system prompt steps take no time and no tokens
        if step_log.timing.duration is not None:
            self.step_durations.append(step_log.timing.duration)
        if step_log.token_usage is not None:
            self.total_input_token_count += step_log.token_usage.input_tokens
            self.total_output_token_count += step_log.token_usage.output_tokens

    def get_total_token_counts(self) -> TokenUsage:
        """The tokens read and written so far."""
        return TokenUsage(self.total_input_token_count, self.total_output_token_count)

    @classmethod
    def from_steps(
        cls, steps: Iterable[MemoryStep], tracked_model: Any = None, logger: Any = None
    ) -> Monitor:
        """A monitor fed with `steps` (e.g. an agent's memory)."""
        monitor = cls(tracked_model, logger)
        for step in steps:
            monitor.update_metrics(step)
        return monitor


__all__ = ["AgentLogger", "LogLevel", "Monitor", "Timing", "TokenUsage"]
