"""`agent.resume`: go on with a run from its memory, the next step's model output given.

A run that stopped between the model's answer and its action (an approval that outlived
the process, say) is continued by a fresh agent: its memory restored (`restore_memory`),
then `resume(model_output)` runs the next step with that output as the model's answer, through
the loop's normal path (parsing, repairs, the approval gate, the action), and the run goes on
as usual. The model is not called for that step.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from agents.errors import AgentConfigError
from agents.events import AgentEvent
from agents.loop.run_result import collect_run
from agents.memory.steps import ActionStep, SystemPromptStep, TaskStep
from agents.models.messages import ChatMessage, MessageRole


class ResumeMixin:
    """`resume`, built on what `MultiStepAgent` defines (`memory`, `_run_stream`, ...)."""

    def resume(
        self,
        model_output: ChatMessage | str,
        stream: bool = False,
        max_steps: int | None = None,
        return_full_result: bool | None = None,
        step_number: int | None = None,
    ) -> Iterator[AgentEvent] | Any:
        """Go on with the last task in memory; `model_output` is the next step's model answer.

        The step's number follows the action steps already in memory after the task; the
        rest of the run (more steps, the final answer) is as `run` would do it.

        Args:
            model_output: What the model answered for that step (a `ChatMessage`, e.g. an
                `ApprovalRequest.model_output`, or its text).
            stream: Return an iterator of `AgentEvent`s instead of the answer.
            max_steps: The run's step limit (default: the agent's), counted from the task.
            return_full_result: Return a `RunResult` (answer, steps, tokens, timing).
            step_number: The step `model_output` belongs to, when known (e.g. an
                `ApprovalRequest.step_number`): memory must be at that step.

        Raises:
            AgentConfigError: Memory holds no task to go on with, or is not at
                `step_number`, or `model_output` is neither a `ChatMessage` nor a string.
        """
        steps = self.memory.steps
        at = next(
            (i for i in range(len(steps) - 1, -1, -1) if isinstance(steps[i], TaskStep)), None
        )
        if at is None:
            raise AgentConfigError(
                "resume() goes on with the last task in memory, and memory holds none: run "
                "the agent first, or restore a stored conversation with restore_memory()."
            )
        output = _as_message(model_output)
        task: TaskStep = steps[at]
        first = 1 + sum(isinstance(step, ActionStep) for step in steps[at + 1 :])
        if step_number is not None and step_number != first:
            raise AgentConfigError(
                f"resume() was given the output of step {step_number}, but memory is at step "
                f"{first} of its last task: it is not the memory that step was written in."
            )
        limit = max(max_steps or self.max_steps, first)
        self._interrupt.clear()
        self.task = task.task
        self.memory.system_prompt = SystemPromptStep(self.initialize_system_prompt())
        self._prepare_run({})
        self.logger.on_run_start(task.task, self.model)
        events = self._run_stream(task.task, limit, task.task_images, False, first, output)
        events = self._logged(
            self.tracing.run(events, self.name or type(self).__name__, self.model, task.task)
        )
        if stream:
            return events
        full = self.return_full_result if return_full_result is None else return_full_result
        return collect_run(events, self.memory, full)


def _as_message(model_output: Any) -> ChatMessage:
    if isinstance(model_output, ChatMessage):
        return model_output
    if isinstance(model_output, str):
        return ChatMessage(role=MessageRole.ASSISTANT, content=model_output)
    raise AgentConfigError(
        f"resume() takes the model's output as a ChatMessage or a string, got {model_output!r}."
    )
