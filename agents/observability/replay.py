"""Replaying an agent's memory on a console: task, model output, code, observations, errors,
tokens and durations of each step, like smolagents' `replay`."""

from __future__ import annotations

import json
from typing import Any

from agents.memory.steps import ActionStep, MemoryStep, PlanningStep, SystemPromptStep, TaskStep
from agents.observability.console import RULE, ConsoleLogger, LogLevel


def replay_steps(
    system_prompt: SystemPromptStep | None,
    steps: list[MemoryStep],
    logger: ConsoleLogger,
    detailed: bool = False,
) -> None:
    """Write the steps through `logger` (at error level: shown unless the logger is off).

    Args:
        system_prompt: The memory's system prompt, shown first.
        steps: The memory steps, oldest first.
        logger: Where to write.
        detailed: Also write the messages the model saw at each step.
    """
    logger.log("Replaying the agent's steps:", level=LogLevel.ERROR)
    if system_prompt is not None:
        logger.log(f"System prompt:\n{system_prompt.system_prompt}", level=LogLevel.ERROR)
    for step in steps:
        text = _describe(step, detailed)
        if text:
            logger.log(text, level=LogLevel.ERROR)


def _describe(step: MemoryStep, detailed: bool) -> str:
    if isinstance(step, TaskStep):
        images = f"\n[{len(step.task_images)} image(s)]" if step.task_images else ""
        return f"{RULE}\nNew task:\n{step.task.strip()}{images}\n{RULE}"
    if isinstance(step, PlanningStep):
        lines = ["Planning step"]
        if detailed:
            lines.append(_messages(step.model_input_messages))
        lines += [f"Plan:\n{step.plan.strip()}", _footer(step)]
        return "\n".join(x for x in lines if x) + f"\n{RULE}"
    if isinstance(step, ActionStep):
        return _action(step, detailed)
    return ""


def _action(step: ActionStep, detailed: bool) -> str:
    lines = [f"Step {step.step_number}"]
    if detailed and step.model_input_messages:
        lines.append(_messages(step.model_input_messages))
    if step.model_output:
        lines.append(f"Model output:\n{step.model_output.strip()}")
    if step.code_action:
        lines.append("Code:\n" + _indent(step.code_action))
    elif step.tool_calls:
        lines += [
            f"Calling {c.name}({json.dumps(c.arguments, default=str)})" for c in step.tool_calls
        ]
    if step.observations:
        lines.append("Observations:\n" + _indent(step.observations.strip()))
    if step.error is not None:
        lines.append(f"Error: {step.error.message}")
    if step.is_final_answer:
        lines.append(f"Final answer: {step.action_output}")
    lines.append(_footer(step))
    return "\n".join(x for x in lines if x) + f"\n{RULE}"


def _messages(messages: Any) -> str:
    return "Input messages:\n" + "\n".join(_indent(f"[{m.role}] {m.text}") for m in messages or [])


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def _footer(step: ActionStep | PlanningStep) -> str:
    parts = []
    if step.timing.duration is not None:
        parts.append(f"Duration {step.timing.duration:.2f} seconds")
    if step.token_usage:
        parts.append(f"Input tokens: {step.token_usage.input_tokens:,}")
        parts.append(f"Output tokens: {step.token_usage.output_tokens:,}")
    return f"[{' | '.join(parts)}]" if parts else ""
