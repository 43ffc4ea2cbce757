"""`MultiStepAgent`: the ReAct loop, and nothing else.

Each step: memory -> messages -> model -> action -> observation -> memory. Subclasses say how
an answer becomes an action (`_step_stream`); everything else lives here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

from agents import context, planning
from agents.agent_api import AgentApiMixin, check_grammar
from agents.callbacks import normalize_callbacks, takes_agent
from agents.console import ConsoleLogger, LogLevel
from agents.errors import (
    AgentConfigError,
    AgentError,
    AgentGenerationError,
    AgentInterruptedError,
    AgentMaxStepsError,
)
from agents.memory import (
    ActionOutput,
    ActionStep,
    AgentMemory,
    FinalAnswerStep,
    MemoryStep,
    RunResult,
    SystemPromptStep,
    TaskStep,
    Timing,
)
from agents.models.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    TokenUsage,
    agglomerate_stream_deltas,
)
from agents.monitoring import AgentLogger
from agents.persistence import PersistenceMixin
from agents.prompts import load_prompt_templates
from agents.toolset import build_toolset
from agents.tracing import AgentTracing, default_tracer


class MultiStepAgent(PersistenceMixin, AgentApiMixin):
    """An agent that solves a task in steps of think, act, observe.

    Args:
        tools: Tools the agent may use.
        model: A `Model` (anything with `generate`).
        prompt_templates: Overrides for the packaged prompt templates.
        max_steps: Steps before the agent must answer from memory.
        add_base_tools: Add the default toolbox.
        verbosity_level: Console output: 0 silent, 1 steps, 2 debug.
        managed_agents: Agents (with `name` and `description`) this agent may call.
        step_callbacks: Called after each step with `(step, agent)`; a list, or a dict
            from step class to list.
        planning_interval: Plan before step 1 and then every this many steps.
        name: Name under which a manager agent calls this agent.
        description: What this agent does, for a manager agent.
        provide_run_summary: As a managed agent, append a summary of its steps to its report.
        final_answer_checks: Functions `(answer, memory) -> bool` (or taking `agent=` too);
            a failing check becomes an error the model sees, and the run goes on.
        return_full_result: Make `run` return a `RunResult` instead of the bare answer.
        stream_outputs: Stream model tokens (as `ChatMessageStreamDelta` events).
        max_context_tokens: Prompt budget in tokens; None derives it from the model's
            context size, 0 turns trimming off.
        instructions: Extra text appended to the system prompt.
        logger: Console logger (an `AgentLogger`); default one at `verbosity_level`.
        grammar: A decoding grammar sent with every model call (GBNF for llama.cpp); a
            backend that cannot use one raises `AgentConfigError`.
    """

    prompt_file = "code_agent"

    def __init__(
        self,
        tools: list[Any],
        model: Any,
        prompt_templates: dict[str, Any] | None = None,
        max_steps: int = 20,
        add_base_tools: bool = False,
        verbosity_level: int = LogLevel.INFO,
        managed_agents: list[Any] | None = None,
        step_callbacks: list[Callable] | dict[type, Any] | None = None,
        planning_interval: int | None = None,
        name: str | None = None,
        description: str | None = None,
        provide_run_summary: bool = False,
        final_answer_checks: list[Callable] | None = None,
        return_full_result: bool = False,
        stream_outputs: bool = False,
        max_context_tokens: int | None = None,
        instructions: str | None = None,
        logger: ConsoleLogger | None = None,
        grammar: Any = None,
    ):
        if not callable(getattr(model, "generate", None)):
            raise AgentConfigError(
                f"model must be a Model with a generate() method, got {model!r}."
            )
        if max_steps < 1:
            raise AgentConfigError(f"max_steps must be at least 1, got {max_steps}.")
        if planning_interval is not None and planning_interval < 1:
            raise AgentConfigError("planning_interval must be a positive number of steps.")
        if name is not None and not str(name).isidentifier():
            raise AgentConfigError(f"Agent name {name!r} must be a Python identifier.")
        self.model = model
        self.grammar = check_grammar(model, grammar)
        self.max_steps = max_steps
        self.planning_interval = planning_interval
        self.name, self.description = name, description
        self.provide_run_summary = provide_run_summary
        self.final_answer_checks = list(final_answer_checks or [])
        self.return_full_result = return_full_result
        self.stream_outputs = stream_outputs
        self.instructions = instructions
        self.max_context_tokens = max_context_tokens
        self.prompt_templates = load_prompt_templates(self.prompt_file, prompt_templates)
        self.tools, self.managed_agents = build_toolset(
            tools, managed_agents, add_base_tools, self._base_tools_with_interpreter
        )
        self.step_callbacks = normalize_callbacks(step_callbacks)
        self.logger = logger or AgentLogger(verbosity_level)
        self.tracing = AgentTracing(default_tracer())  # spans only when OTEL_* asks
        self.memory = AgentMemory(self.initialize_system_prompt())
        self.state: dict[str, Any] = {}
        self.step_number = 0
        self.task: str | None = None
        self._interrupt = threading.Event()
        self._run_lock = threading.Lock()

    _base_tools_with_interpreter = False

    # -- prompts ---------------------------------------------------------------------

    def initialize_system_prompt(self) -> str:
        raise NotImplementedError

    def write_memory_to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        """The memory as model messages, trimmed to the context budget."""
        head = self.memory.system_prompt.to_messages(summary_mode)
        groups = []
        last_task = max(
            (i for i, s in enumerate(self.memory.steps) if isinstance(s, TaskStep)), default=0
        )
        latest = len(self.memory.steps) - context.PROTECTED_LATEST_STEPS
        for index, step in enumerate(self.memory.steps):
            groups.append(
                context.StepMessages(
                    step.to_messages(summary_mode),
                    is_task=isinstance(step, TaskStep),
                    # The current task and the latest steps stay whole; the current task's
                    # earlier steps go after every older turn's, oldest first.
                    protected=index == last_task or index >= latest,
                )
            )
        budget = self._context_budget()
        if not budget:
            return head + [m for g in groups for m in g.messages]
        return context.fit_to_budget(head, groups, budget, self.model.count_tokens)

    def _context_budget(self) -> int:
        if self.max_context_tokens == 0:
            return 0
        if self.max_context_tokens:
            return self.max_context_tokens
        return context.default_budget(getattr(self.model, "context_size", None))

    # -- running ---------------------------------------------------------------------

    def run(
        self,
        task: str,
        stream: bool = False,
        reset: bool = True,
        images: list[Any] | None = None,
        additional_args: dict[str, Any] | None = None,
        max_steps: int | None = None,
        return_full_result: bool | None = None,
        single_step: bool = False,
    ) -> Any:
        """Run the agent on a task.

        Args:
            task: What to do.
            stream: Return a generator of events instead of the answer.
            reset: Start a new conversation; False continues the previous one.
            images: PIL images that come with the task.
            additional_args: Values made available to the agent (as variables for code).
            max_steps: Overrides the agent's `max_steps` for this run.
            return_full_result: Return a `RunResult` (answer, steps, tokens, timing).
            single_step: Run exactly one step and return its output.
        """
        if not isinstance(task, str) or not task.strip():
            raise AgentConfigError("task must be a non-empty string.")
        self._interrupt.clear()
        self.task = task
        if additional_args:
            self.state.update(additional_args)
            task += (
                "\nYou have been given these additional arguments, available as variables "
                f"in your code: {', '.join(sorted(additional_args))}.\n"
                + "\n".join(f"{k}: {_preview(v)}" for k, v in additional_args.items())
            )
        self.memory.system_prompt = SystemPromptStep(self.initialize_system_prompt())
        if reset:
            self.memory.reset()
            self.state = dict(additional_args or {})
            self._reset_run_state()
        self.memory.steps.append(TaskStep(task=task, task_images=list(images or []) or None))
        self._prepare_run(additional_args or {})
        self.logger.on_run_start(task, self.model)
        limit = 1 if single_step else (max_steps or self.max_steps)
        events = self._run_stream(task, limit, images, single_step)
        events = self._logged(
            self.tracing.run(events, self.name or type(self).__name__, self.model, task)
        )
        if stream:
            return events
        return self._consume(
            events, self.return_full_result if return_full_result is None else return_full_result
        )

    def _consume(self, events: Iterator[Any], full: bool) -> Any:
        start, steps_before = time.time(), len(self.memory.steps)
        output, state, error = None, "success", None
        try:
            for event in events:
                if isinstance(event, FinalAnswerStep):
                    output = event.output
        except AgentError as err:
            if not full:
                raise
            state = "interrupted" if isinstance(err, AgentInterruptedError) else "error"
            error = err
        new_steps = self.memory.steps[steps_before - 1 :]
        if any(
            isinstance(s, ActionStep) and isinstance(s.error, AgentMaxStepsError) for s in new_steps
        ):
            state = "max_steps_error"
        if not full:
            return output
        usage = TokenUsage()
        for step in new_steps:
            usage = usage + getattr(step, "token_usage", None)
        return RunResult(
            output, state, [s.dict() for s in new_steps], usage, Timing(start, time.time()), error
        )

    def _logged(self, events: Iterator[Any]) -> Generator[Any, None, None]:
        for event in events:
            self.logger.on_event(event)
            yield event

    def _run_stream(
        self, task: str, max_steps: int, images: list[Any] | None, single_step: bool
    ) -> Generator[Any, None, None]:
        self.step_number = 1
        final, has_final = None, False
        while not has_final and self.step_number <= max_steps:
            self._check_interrupt()
            if self._planning_due():
                yield from planning.planning_step(self, task, max_steps)
            step = ActionStep(step_number=self.step_number)
            self.tracing.step_started(self.step_number)
            try:
                for event in self._step_stream(step):
                    if isinstance(event, ActionOutput) and event.is_final_answer:
                        self._check_final_answer(event.output)
                        final, has_final = event.output, True
                        step.action_output, step.is_final_answer = event.output, True
                    yield event
            except AgentGenerationError as error:
                step.error = error
                self._finish_step(step)
                raise
            except AgentError as error:
                step.error = error
            except GeneratorExit:
                step.error = AgentInterruptedError("The user stopped this run.")
                self._finish_step(step, callbacks=False)
                raise
            self._finish_step(step)
            yield step
            if single_step:
                final, has_final = step.action_output, True
            self.step_number += 1
        if not has_final:
            final = yield from planning.answer_after_max_steps(self, task, images)
        yield FinalAnswerStep(output=final)

    def _finish_step(self, step: MemoryStep, callbacks: bool = True) -> None:
        step.timing.end_time = time.time()
        self.memory.steps.append(step)
        self.tracing.step_ended(step)
        if callbacks:
            self._run_callbacks(step)

    def _run_callbacks(self, step: MemoryStep) -> None:
        for kind, callback in self.step_callbacks:
            if kind is None or isinstance(step, kind):
                if takes_agent(callback):
                    callback(step, agent=self)
                else:
                    callback(step)

    def _planning_due(self) -> bool:
        interval = self.planning_interval
        return bool(interval) and (self.step_number == 1 or (self.step_number - 1) % interval == 0)

    def _check_interrupt(self) -> None:
        if self._interrupt.is_set():
            raise AgentInterruptedError("The run was interrupted.")

    def _check_final_answer(self, answer: Any) -> None:
        for check in self.final_answer_checks:
            label = getattr(check, "__name__", "check")
            try:
                if takes_agent(check):
                    ok = check(answer, self.memory, agent=self)
                else:
                    ok = check(answer, self.memory)
            except Exception as error:
                raise AgentError(
                    f"Your final answer failed the check '{label}': {error}. Fix it and retry."
                ) from error
            if not ok:
                raise AgentError(f"Your final answer failed the check '{label}'. Fix it and retry.")

    def interrupt(self) -> None:
        """Stop the current run at the next step boundary (or during model streaming)."""
        self._interrupt.set()

    # -- model calls, shared by subclasses ---------------------------------------------

    def _call_model(
        self, messages: list[ChatMessage], **kwargs: Any
    ) -> Generator[ChatMessageStreamDelta, None, ChatMessage]:
        """Call the model (streaming when enabled); provider failures end the run."""
        calls = self._call_model_untraced(messages, **kwargs)
        return (yield from self.tracing.model_call(calls, self.model, messages))

    def _call_model_untraced(
        self, messages: list[ChatMessage], **kwargs: Any
    ) -> Generator[ChatMessageStreamDelta, None, ChatMessage]:
        if self.grammar is not None:
            kwargs.setdefault("grammar", self.grammar)
        try:
            if not self.stream_outputs:
                return self.model.generate(messages, **kwargs)
            deltas = []
            for delta in self.model.generate_stream(messages, **kwargs):
                if self._interrupt.is_set():
                    raise AgentInterruptedError("The run was interrupted.")
                deltas.append(delta)
                yield delta
            return agglomerate_stream_deltas(deltas)
        except (AgentError, GeneratorExit):
            raise
        except Exception as error:
            detail = getattr(error, "message", None) or str(error) or type(error).__name__
            raise AgentGenerationError(
                f"The model call failed: {type(error).__name__}: {detail}"
            ) from error

    # -- hooks for subclasses --------------------------------------------------------

    def _step_stream(self, step: ActionStep) -> Generator[Any, None, None]:
        raise NotImplementedError

    def _prepare_run(self, additional_args: dict[str, Any]) -> None:
        """Make state and tools available before the first step (e.g. to an executor)."""

    def _reset_run_state(self) -> None:
        """Forget per-conversation state beyond memory (e.g. executor variables)."""

    # -- inspection ------------------------------------------------------------------

    def replay(self, detailed: bool = False) -> None:
        """Print the memory again: task, and each step's output, code, observations, errors
        and tokens.

        Args:
            detailed: Also print the messages the model saw at each step.
        """
        self.memory.replay(AgentLogger(LogLevel.INFO, stream=self.logger.stream), detailed)

    def visualize(self) -> str:
        """Print and return the tree of this agent, its tools and managed agents."""
        from agents.tree import agent_tree

        text = agent_tree(self)
        self.logger._write(text)
        return text

    def __call__(self, task: str, **kwargs: Any) -> str:
        """Run as a managed agent: the manager's task in, a report out."""
        from agents.managed import run_as_managed

        return run_as_managed(self, task, **kwargs)

    def close(self) -> None:
        """Release resources (executors, tools' workers); do not use the agent afterwards."""
        for tool in self.tools.values():
            closer = getattr(tool, "close", None)
            if callable(closer):
                closer()


def _preview(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
