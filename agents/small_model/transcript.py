"""What a small model sees of the agent's memory: a short transcript in the format it copies.

The full transcript repeats each step's code as a JSON tool call, wraps errors in advice
and keeps every earlier turn; a 135M model copies the JSON, ignores the advice and loses
the task in the length. The small transcript is the system prompt, a few worked examples
retrieved for the current task from the bank (`agents.small_model.examples`), the last
earlier turns as task -> answering step, then the current task and its steps: each step as
the model wrote it, followed by its observation or a one-line error.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from agents.loop.repair import strip_note
from agents.memory.steps import ActionStep, MemoryStep, TaskStep
from agents.models.messages import ChatMessage, MessageRole
from agents.small_model.examples import pick_examples

_MAX_OBSERVATION_CHARS = 400
ERROR_PREFIX = "Code execution failed: "


def small_transcript(
    system_prompt: str,
    steps: Sequence[MemoryStep],
    code_block_tags: tuple[str, str],
    examples: int = 3,
    earlier_turns: int = 2,
    tools: Collection[str] = (),
) -> list[ChatMessage]:
    """The messages for a small model's next step.

    Args:
        system_prompt: The agent's (short) system prompt.
        steps: The agent's memory steps, oldest first.
        code_block_tags: The (open, close) markers of a code block.
        examples: How many worked examples to show before the current task.
        earlier_turns: How many earlier turns (task and answering step) to keep.
        tools: The names of the agent's tools (worked examples may call them).
    """
    turns = _turns(steps)
    if not turns:
        return [_message(MessageRole.SYSTEM, system_prompt)]
    *earlier, (task, current) = turns
    messages = [_message(MessageRole.SYSTEM, system_prompt)]
    for example in pick_examples(task.task, examples, tools=tools):
        messages.append(_message(MessageRole.USER, example.task))
        messages.append(_message(MessageRole.ASSISTANT, example.answer(*code_block_tags)))
    for old_task, old_steps in earlier[-earlier_turns:] if earlier_turns > 0 else []:
        answered = [s for s in old_steps if s.is_final_answer and s.model_output]
        if answered:
            messages.append(_message(MessageRole.USER, old_task.task))
            messages.append(_message(MessageRole.ASSISTANT, _action(answered[-1], code_block_tags)))
    messages.append(_message(MessageRole.USER, task.task))
    for step in current:
        messages += step_messages(step, code_block_tags)
    return messages


def step_messages(step: ActionStep, code_block_tags: tuple[str, str]) -> list[ChatMessage]:
    """One step as it ran (after repair), then what came of it (observation or short error).

    Args:
        step: A finished action step.
        code_block_tags: The (open, close) markers of a code block.
    """
    messages = []
    if step.model_output:
        messages.append(_message(MessageRole.ASSISTANT, _action(step, code_block_tags)))
    if step.error is not None:
        error = str(step.error.message).removeprefix(ERROR_PREFIX)
        messages.append(_message(MessageRole.USER, f"Error: {_short(error)}\nFix the code."))
    elif step.observations is not None:
        messages.append(_message(MessageRole.USER, f"Observation: {_observation(step)}"))
    return messages


def _action(step: ActionStep, code_block_tags: tuple[str, str]) -> str:
    """The step's thought and the code that ran (the model's text when no code was found)."""
    open_tag, close_tag = code_block_tags
    output = (step.model_output or "").strip()
    if not step.code_action or open_tag not in output:
        return output
    thought = output.split(open_tag, 1)[0].strip()
    return f"{thought}\n{open_tag}\n{step.code_action.strip()}\n{close_tag}"


def _observation(step: ActionStep) -> str:
    """What the step's code printed (and its last value), without headers or repair notes."""
    text = strip_note(step.observations or "")
    text = text.replace("Execution logs: (none)", "").replace("Execution logs:\n", "")
    text = text.replace("Last output from code snippet:\nNone", "")
    text = text.replace("Last output from code snippet:\n", "Value: ")
    return _short(text) or "(nothing was printed)"


def _turns(steps: Sequence[MemoryStep]) -> list[tuple[TaskStep, list[ActionStep]]]:
    """The memory split into turns: each task with the action steps that followed it."""
    turns: list[tuple[TaskStep, list[ActionStep]]] = []
    for step in steps:
        if isinstance(step, TaskStep):
            turns.append((step, []))
        elif isinstance(step, ActionStep) and turns:
            turns[-1][1].append(step)
    return turns


def _short(text: str) -> str:
    text = text.strip()
    if len(text) <= _MAX_OBSERVATION_CHARS:
        return text
    return text[:_MAX_OBSERVATION_CHARS] + " ..."


def _message(role: MessageRole, text: str) -> ChatMessage:
    return ChatMessage(role=role.value, content=[{"type": "text", "text": text}])
