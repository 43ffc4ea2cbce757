"""The parts of smolagents' agent API that sit beside the loop: `system_prompt`, `monitor`,
`logs`, `replay`, `visualize`, calling an agent as a managed one, `step`,
`provide_final_answer`, `cleanup` and `with agent:`, and the `grammar=` check.

`MultiStepAgent` mixes this in; the loop itself stays in `agents.loop.agent`.
"""

from __future__ import annotations

import time
from typing import Any

from agents.errors import AgentConfigError, AgentError, AgentParsingError
from agents.memory.steps import ActionOutput, ActionStep, MemoryStep
from agents.models.messages import ChatMessage
from agents.models.protocol import AgentModel
from agents.observability.console import LogLevel
from agents.observability.monitoring import AgentLogger, Monitor


class AgentApiMixin:
    """smolagents-compatible accessors and single-step methods of an agent.

    Built on what `MultiStepAgent` defines: `memory`, `model`, `logger`,
    `initialize_system_prompt`, `_prepare_run`, `_step_stream`, `_check_final_answer`, `close`.
    """

    @property
    def system_prompt(self) -> str:
        """The system prompt, rendered from `prompt_templates["system_prompt"]` now."""
        return self.initialize_system_prompt()

    @system_prompt.setter
    def system_prompt(self, value: str) -> None:
        raise AttributeError(
            "system_prompt is read-only: change agent.prompt_templates['system_prompt'] "
            "instead (it is rendered again at each run)."
        )

    @property
    def monitor(self) -> Monitor:
        """Token and duration totals of the steps in memory (`get_total_token_counts()`)."""
        return Monitor.from_steps(self.memory.steps, self.model, self.logger)

    @property
    def logs(self) -> list[MemoryStep]:
        """The system prompt step, then every memory step (smolagents' older `agent.logs`)."""
        return [self.memory.system_prompt, *self.memory.steps]

    def replay(self, detailed: bool = False) -> None:
        """Print the memory again: task, and each step's output, code, observations, errors
        and tokens.

        Args:
            detailed: Also print the messages the model saw at each step.
        """
        self.memory.replay(AgentLogger(LogLevel.INFO, stream=self.logger.stream), detailed)

    def visualize(self) -> str:
        """Print and return the tree of this agent, its tools and managed agents."""
        from agents.observability.tree import agent_tree

        text = agent_tree(self)
        self.logger._write(text)
        return text

    def __call__(self, task: str, **kwargs: Any) -> str:
        """Run as a managed agent: the manager's task in, a report out."""
        from agents.loop.managed import run_as_managed

        return run_as_managed(self, task, **kwargs)

    def cleanup(self) -> None:
        """Release the agent's executor and tools (smolagents' name for `close`)."""
        self.close()

    def __enter__(self) -> AgentApiMixin:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    def step(self, memory_step: ActionStep) -> Any:
        """Run one think-act-observe cycle into `memory_step` (not added to memory).

        Returns the final answer if this step gave one, else None. A model mistake is
        recorded as `memory_step.error` and raised.

        Args:
            memory_step: The step to fill, e.g. `ActionStep(step_number=1)`.
        """
        self._prepare_run({})
        final: Any = None
        try:
            for event in self._step_stream(memory_step):
                if isinstance(event, ActionOutput) and event.is_final_answer:
                    self._check_final_answer(event.output)
                    final = event.output
                    memory_step.action_output, memory_step.is_final_answer = final, True
        except AgentError as error:
            memory_step.error = error
            raise
        finally:
            memory_step.timing.end_time = time.time()
        return final

    def extract_action(self, model_output: str, split_token: str) -> tuple[str, str]:
        """Split a model output into (rationale, action) at the last `split_token`.

        Args:
            model_output: The model's text.
            split_token: The marker before the action, e.g. "Action:".

        Raises:
            AgentParsingError: The marker is not in the text (a model mistake).
        """
        rationale, found, action = model_output.rpartition(split_token)
        if not found:
            raise AgentParsingError(
                f"Your answer has no {split_token!r} followed by the action. "
                f"Your answer was:\n{model_output[:2000]}"
            )
        return rationale.strip(), action.strip()

    def provide_final_answer(self, task: str, images: list[Any] | None = None) -> ChatMessage:
        """Ask the model for a final answer to `task` from the memory so far.

        Args:
            task: The task to answer.
            images: Images that came with the task.
        """
        from agents.loop.planning import final_answer_messages

        return self.model.generate(final_answer_messages(self, task, images))


def check_grammar(model: AgentModel, grammar: Any) -> Any:
    """Accept `grammar=` only for a backend that can constrain decoding with it.

    Args:
        model: The agent's model.
        grammar: The grammar (GBNF text for llama.cpp), or None.

    Raises:
        AgentConfigError: A grammar for a backend that cannot use one.
    """
    if grammar is not None and not model.supports_grammar:
        raise AgentConfigError(
            f"grammar= needs a backend that constrains decoding with a grammar (LlamaCppModel "
            f"does); {type(model).__name__} cannot use one. Remove grammar=, or use "
            "use_structured_outputs_internally=True for JSON-constrained output."
        )
    return grammar
