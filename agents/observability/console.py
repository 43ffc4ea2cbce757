"""Console output: one more consumer of the agent's event stream, for terminals."""

from __future__ import annotations

import sys
from enum import IntEnum
from typing import Any, TextIO

from agents.events import (
    ActionStep,
    AgentEvent,
    ChatMessageStreamDelta,
    FinalAnswerStep,
    PlanningStep,
    TaskStep,
)

RULE = "─" * 72


class LogLevel(IntEnum):
    """How much the console shows: 0 (or OFF) nothing, 1 (INFO) steps, 2 (DEBUG) everything.

    ERROR is kept for smolagents compatibility; errors reach the caller as exceptions and
    the model as observations, so at 0 the console stays silent.
    """

    OFF = -1
    ERROR = 0
    INFO = 1
    DEBUG = 2


class ConsoleLogger:
    """Writes readable step summaries for the events it is given.

    Args:
        level: A `LogLevel` or int (0 silent, 1 steps, 2 debug).
        stream: Where to write (stdout by default).
    """

    def __init__(self, level: int = LogLevel.INFO, stream: TextIO | None = None):
        self.level = LogLevel(level)
        self.stream = stream

    def _write(self, text: str) -> None:
        out = self.stream or sys.stdout
        out.write(text + "\n")
        out.flush()

    def log(self, *values: Any, level: int = LogLevel.INFO) -> None:
        """Write `values` (joined by spaces) when the logger's level shows `level`.

        Args:
            *values: What to write.
            level: The least verbosity at which it shows.
        """
        if self.level >= level:
            self._write(" ".join(str(v) for v in values))

    def on_run_start(self, task: str, model: Any) -> None:
        if self.level >= LogLevel.INFO:
            self._write(f"{RULE}\nNew run · {model!r}\n{task.strip()}\n{RULE}")

    def on_event(self, event: AgentEvent) -> None:
        """Write what `event` shows at this logger's level.

        Args:
            event: An event of the agent's run.
        """
        if isinstance(event, ActionStep):
            self._action(event)
        elif isinstance(event, PlanningStep) and self.level >= LogLevel.INFO:
            self._write(f"Plan:\n{event.plan.strip()}\n{RULE}")
        elif isinstance(event, FinalAnswerStep) and self.level >= LogLevel.INFO:
            self._write(f"Final answer: {event.output}")
        elif isinstance(event, TaskStep) and self.level >= LogLevel.INFO:
            self._write(f"Task: {event.task}")
        elif isinstance(event, ChatMessageStreamDelta) and self.level >= LogLevel.DEBUG:
            (self.stream or sys.stdout).write(event.content or "")

    def _action(self, step: ActionStep) -> None:
        if self.level < LogLevel.INFO:
            return
        if step.error is not None:
            self._write(f"Step {step.step_number} error: {step.error.message}")
        lines = [f"Step {step.step_number}"]
        if self.level >= LogLevel.DEBUG and step.model_output:
            lines.append(f"Model output:\n{step.model_output.strip()}")
        if step.code_action:
            lines.append("Code:\n" + _indent(step.code_action))
        elif step.tool_calls:
            lines += [f"Calling {c.name}({c.arguments})" for c in step.tool_calls]
        if step.observations:
            lines.append("Observation:\n" + _indent(step.observations.strip()))
        lines.append(_footer(step))
        self._write("\n".join(lines) + f"\n{RULE}")


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def _footer(step: ActionStep) -> str:
    parts = []
    if step.timing.duration is not None:
        parts.append(f"{step.timing.duration:.2f} s")
    if step.token_usage:
        parts.append(
            f"input tokens {step.token_usage.input_tokens:,}, "
            f"output tokens {step.token_usage.output_tokens:,}"
        )
    return f"[{' | '.join(parts)}]" if parts else ""
