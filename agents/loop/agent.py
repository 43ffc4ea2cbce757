"""`MultiStepAgent`: the ReAct loop, and nothing else.

Each step: memory -> messages -> model -> action -> observation -> memory. Subclasses say how
an answer becomes an action (`_step_stream`); everything else of the loop lives here. What is
called around runs (reset, undo, interrupt, close...) is in `agents.loop.lifecycle`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any, Literal, overload

from agents.approval.gate import ApprovalGate
from agents.approval.policy import ApprovalPolicy
from agents.errors import (
    AgentConfigError,
    AgentError,
    AgentGenerationError,
    AgentInterruptedError,
    AgentStoppedError,
)
from agents.events import AgentEvent
from agents.loop import planning
from agents.loop.agent_api import AgentApiMixin, check_grammar
from agents.loop.callbacks import normalize_callbacks, run_callbacks
from agents.loop.config import AgentConfig
from agents.loop.final_answer_checks import check_final_answer
from agents.loop.lifecycle import LifecycleMixin
from agents.loop.model_call import call_model
from agents.loop.persistence_api import PersistenceMixin
from agents.loop.profile import GENERIC, ModelProfile
from agents.loop.resume import ResumeMixin
from agents.loop.run_result import collect_run
from agents.loop.toolset import build_toolset
from agents.memory import context, image_budget
from agents.memory.steps import (
    ActionOutput,
    ActionStep,
    AgentMemory,
    FinalAnswerStep,
    MemoryStep,
    SystemPromptStep,
    TaskStep,
)
from agents.models.messages import ChatMessage, ChatMessageStreamDelta
from agents.models.protocol import AgentModel
from agents.observability.console import ConsoleLogger, LogLevel
from agents.observability.monitoring import AgentLogger
from agents.observability.tracer import default_tracer
from agents.observability.tracing import AgentTracing
from agents.prompts import additional_args_note, load_prompt_templates


class MultiStepAgent(PersistenceMixin, AgentApiMixin, ResumeMixin, LifecycleMixin):
    """An agent that solves a task in steps of think, act, observe.

    Args:
        tools: Tools the agent may use.
        model: A `Model` (anything that offers what `agents.models.protocol.AgentModel`
            declares).
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
        approve: What waits for a person's approval before it runs (`agents.approval.policy`).
        approver: Answers each `ApprovalRequest` with an `ApprovalDecision`; it may block.

    The arguments, as given, stay in `config` (an `AgentConfig`, which checks them): what
    `clone` builds from.
    """

    prompt_file = "code_agent"
    # What the loop asks at its fixed points (`agents.loop.profile`); subclasses choose one.
    profile: ModelProfile = GENERIC

    def __init__(
        self,
        tools: list[Any],
        model: AgentModel,
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
        approve: Any = "never",
        approver: Callable | None = None,
    ):
        self.config = AgentConfig(
            tools=tools,
            model=model,
            prompt_templates=prompt_templates,
            max_steps=max_steps,
            add_base_tools=add_base_tools,
            verbosity_level=verbosity_level,
            managed_agents=managed_agents,
            step_callbacks=step_callbacks,
            planning_interval=planning_interval,
            name=name,
            description=description,
            provide_run_summary=provide_run_summary,
            final_answer_checks=final_answer_checks,
            return_full_result=return_full_result,
            stream_outputs=stream_outputs,
            max_context_tokens=max_context_tokens,
            instructions=instructions,
            logger=logger,
            grammar=grammar,
            approve=approve,
            approver=approver,
        )
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
        self._given_output: ChatMessage | None = None  # a resumed step's (`resume`)
        policy = ApprovalPolicy.parse(approve, [*self.tools, *self.managed_agents])
        self.approval = ApprovalGate(policy, approver, self.tracing, self._interrupt.is_set)
        self._state_checkpoint: dict[str, Any] | None = None
        self._context_windows = {mode: context.ContextWindow(mode) for mode in (False, True)}

    _base_tools_with_interpreter = False
    # Pixels of step images kept in memory across the conversation (`agents.memory.image_budget`).
    max_kept_image_pixels = image_budget.MAX_KEPT_IMAGE_PIXELS

    # -- prompts ---------------------------------------------------------------------

    def initialize_system_prompt(self) -> str:
        raise NotImplementedError

    def write_memory_to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        """The memory as model messages, trimmed to the context budget.

        Args:
            summary_mode: Leave out the system prompt and the model's own outputs.
        """
        return self._context_windows[summary_mode].messages(
            self.memory.system_prompt,
            self.memory.steps,
            self._context_budget(),
            self.model.count_tokens,
        )

    def _context_budget(self) -> int:
        if self.max_context_tokens == 0:
            return 0
        if self.max_context_tokens:
            return self.max_context_tokens
        return context.default_budget(self.model.context_size)

    # -- running ---------------------------------------------------------------------

    @overload
    def run(
        self,
        task: str,
        stream: Literal[True],
        reset: bool = True,
        images: list[Any] | None = None,
        additional_args: dict[str, Any] | None = None,
        max_steps: int | None = None,
        return_full_result: bool | None = None,
        single_step: bool = False,
    ) -> Iterator[AgentEvent]: ...

    @overload
    def run(
        self,
        task: str,
        stream: Literal[False] = False,
        reset: bool = True,
        images: list[Any] | None = None,
        additional_args: dict[str, Any] | None = None,
        max_steps: int | None = None,
        return_full_result: bool | None = None,
        single_step: bool = False,
    ) -> Any: ...

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
    ) -> Iterator[AgentEvent] | Any:
        """Run the agent on a task.

        Args:
            task: What to do.
            stream: Return an iterator of `AgentEvent`s instead of the answer.
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
        self.memory.system_prompt = SystemPromptStep(self.initialize_system_prompt())
        if reset:
            self.reset()
        self._take_checkpoint()
        if additional_args:
            self.state.update(additional_args)
            task += additional_args_note(additional_args)
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
        full = self.return_full_result if return_full_result is None else return_full_result
        return collect_run(events, self.memory, full)

    def _logged(self, events: Iterator[AgentEvent]) -> Iterator[AgentEvent]:
        for event in events:
            self.logger.on_event(event)
            yield event

    def _run_stream(
        self,
        task: str,
        max_steps: int,
        images: list[Any] | None,
        single_step: bool,
        first_step: int = 1,
        given_output: ChatMessage | None = None,
    ) -> Generator[AgentEvent, None, None]:
        """The loop from `first_step` on; `given_output` (a resumed run's) stands for the
        model's answer in that first step, whose planning, if due, was done before."""
        self.step_number = first_step
        final, has_final = None, False
        while not has_final and self.step_number <= max_steps:
            self._check_interrupt()
            given = given_output if self.step_number == first_step else None
            if given is None and self._planning_due():
                yield from planning.planning_step(self, task, max_steps)
            step = ActionStep(step_number=self.step_number)
            self.tracing.step_started(self.step_number)
            self._given_output = given
            try:
                for event in self._step_stream(step):
                    if isinstance(event, ActionOutput) and event.is_final_answer:
                        self._check_final_answer(event.output)
                        final, has_final = event.output, True
                        step.action_output, step.is_final_answer = event.output, True
                    yield event
            except (AgentGenerationError, AgentStoppedError) as error:  # these end the run
                step.error = error
                self._finish_step(step)
                raise
            except AgentError as error:
                step.error = error
            except GeneratorExit:
                step.error = AgentInterruptedError("The user stopped this run.")
                self._finish_step(step, callbacks=False)
                raise
            finally:
                self._given_output = None
            self._finish_step(step)
            yield step
            if single_step:
                final, has_final = step.action_output, True
            self.step_number += 1
        if not has_final:
            final = yield from planning.answer_after_max_steps(self, task, images)
        answer = FinalAnswerStep(output=final)
        run_callbacks(self.step_callbacks, answer, self)  # before the caller sees it, as smolagents
        yield answer

    def _finish_step(self, step: MemoryStep, callbacks: bool = True) -> None:
        step.timing.end_time = time.time()
        self.memory.steps.append(step)
        image_budget.keep_images_within(self.memory.steps, self.max_kept_image_pixels)
        self.tracing.step_ended(step)
        if callbacks:
            run_callbacks(self.step_callbacks, step, self)

    def _planning_due(self) -> bool:
        interval = self.planning_interval
        return bool(interval) and (self.step_number == 1 or (self.step_number - 1) % interval == 0)

    def _check_interrupt(self) -> None:
        if self._interrupt.is_set():
            raise AgentInterruptedError("The run was interrupted.")

    def _check_final_answer(self, answer: Any) -> None:
        check_final_answer(self.final_answer_checks, answer, self.memory, self)

    # -- model calls, shared by subclasses ---------------------------------------------

    def _call_model(
        self, messages: list[ChatMessage], **kwargs: Any
    ) -> Generator[ChatMessageStreamDelta, None, ChatMessage]:
        """Call the model (streaming when enabled); provider failures end the run. A resumed
        step's given output is its answer instead: the model is not called for it."""
        given, self._given_output = self._given_output, None
        if given is not None:
            return given
        if self.grammar is not None:
            kwargs.setdefault("grammar", self.grammar)
        calls = call_model(self.model, messages, self.stream_outputs, self._interrupt, **kwargs)
        return (yield from self.tracing.model_call(calls, self.model, messages))

    # -- hooks for subclasses --------------------------------------------------------

    def _step_stream(self, step: ActionStep) -> Generator[AgentEvent, None, None]:
        """Fill `step` from one model call and its action, yielding events as they happen."""
        raise NotImplementedError

    def _prepare_run(self, additional_args: dict[str, Any]) -> None:
        """Make state and tools available before the first step (e.g. to an executor)."""
