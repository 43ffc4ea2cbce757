"""`CodeAgent`: the model writes Python; an executor runs it; prints become observations."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Generator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError, AgentExecutionError
from agents.events import AgentEvent, CodeOutputSoFar
from agents.executors import CodeExecutor, CodeOutput, create_executor
from agents.executors.base import ReportsOutput
from agents.executors.python_runner import BASE_AUTHORIZED_IMPORTS
from agents.loop.agent import MultiStepAgent
from agents.loop.config import CodeAgentConfig
from agents.loop.last_answer import current_run
from agents.loop.parsing import extract_code, extract_structured_code
from agents.loop.profile import DraftTrial, ModelProfile, choose_profile
from agents.loop.repair import with_note
from agents.loop.sub_agents import drain_while, relay_while
from agents.memory.steps import ActionOutput, ActionStep, ToolCall
from agents.models.messages import ChatMessage, ChatMessageStreamDelta
from agents.prompts import render
from agents.prompts.code_tags import code_stop_sequences, resolve_code_block_tags

logger = logging.getLogger(__name__)

STRUCTURED_FORMAT = {
    "type": "json_schema",
    "json_schema": {
        "name": "ThoughtAndCode",
        "schema": {
            "type": "object",
            "properties": {"thought": {"type": "string"}, "code": {"type": "string"}},
            "required": ["thought", "code"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}

STRUCTURED_NOTE = (
    'Answer with a JSON object {"thought": "...", "code": "..."} instead of the format above; '
    'put your Python code, without fences, in "code".\n'
)


class CodeAgent(MultiStepAgent):
    """An agent whose actions are Python code, run by an executor.

    Args:
        tools: Tools, callable from the code as functions.
        model: The model that writes the code.
        additional_authorized_imports: Modules the code may import beyond the base list
            (`"*"` for any).
        executor_type: "sandbox" (default: a confined worker process), "local", or a remote
            Jupyter kernel: "jupyter" (executor_kwargs url and token), "docker", "e2b", "modal".
        executor_kwargs: Passed to the executor (timeout, limits, readable paths...).
        executor: A ready executor, instead of `executor_type`.
        max_print_outputs_length: Cap on printed output kept per step.
        use_structured_outputs_internally: Ask for `{"thought", "code"}` JSON through
            `response_format`.
        code_block_tags: The (open, close) markers shown to the model, or "markdown" for
            ```python fences; default `<code>`...`</code>`.
        small_model: The model's profile (`agents.loop.profile.ModelProfile`), e.g. a
            `SmallModelProfile`; or True or False to force the bundled tiny model's profile
            on or off, None to choose it by model.
        **kwargs: See `MultiStepAgent`.
    """

    prompt_file = "code_agent"
    _base_tools_with_interpreter = False

    def __init__(
        self,
        tools: list[Any],
        model: Any,
        additional_authorized_imports: list[str] | None = None,
        executor_type: str = "sandbox",
        executor_kwargs: dict[str, Any] | None = None,
        executor: CodeExecutor | None = None,
        max_print_outputs_length: int | None = None,
        use_structured_outputs_internally: bool = False,
        code_block_tags: str | tuple[str, str] | None = None,
        small_model: bool | ModelProfile | None = None,
        **kwargs: Any,
    ):
        config = CodeAgentConfig(
            tools,
            model,
            additional_authorized_imports=additional_authorized_imports,
            executor_type=executor_type,
            executor_kwargs=executor_kwargs,
            executor=executor,
            max_print_outputs_length=max_print_outputs_length,
            use_structured_outputs_internally=use_structured_outputs_internally,
            code_block_tags=code_block_tags,
            small_model=small_model,
            **kwargs,
        )
        self.additional_authorized_imports = list(additional_authorized_imports or [])
        self.authorized_imports = sorted(
            set(BASE_AUTHORIZED_IMPORTS) | set(self.additional_authorized_imports)
        )
        self.use_structured_outputs_internally = use_structured_outputs_internally
        self.code_block_tags = resolve_code_block_tags(code_block_tags)
        self.executor_type = executor_type
        self.executor_kwargs = dict(executor_kwargs or {})
        self.profile: ModelProfile = choose_profile(model, small_model)
        self.prompt_file = self.profile.prompt_file(self.prompt_file)
        kwargs["max_steps"] = self.profile.max_steps(config.max_steps)
        super().__init__(tools, model, **kwargs)
        self.config: CodeAgentConfig = config
        self._executor: CodeExecutor = executor or create_executor(
            executor_type,
            additional_authorized_imports=self.additional_authorized_imports,
            max_print_outputs_length=max_print_outputs_length,
            **self.executor_kwargs,
        )
        self._tools_sent = False

    def clone(self) -> CodeAgent:
        """A new agent like this one, with its own memory and executor (see `MultiStepAgent`).

        Raises:
            AgentConfigError: The agent was given a ready `executor`, which cannot be shared.
        """
        if self.config.executor is not None:
            raise AgentConfigError(
                "An agent built with a ready executor cannot be cloned: pass executor_type "
                "and executor_kwargs instead."
            )
        return super().clone()

    def saved_settings(self) -> dict[str, Any]:
        """The settings `to_dict` saves: the base's, and how the code is written and run."""
        return {
            **super().saved_settings(),
            "additional_authorized_imports": self.additional_authorized_imports,
            "executor_type": self.executor_type,
            "executor_kwargs": self.executor_kwargs,
            "use_structured_outputs_internally": self.use_structured_outputs_internally,
            "code_block_tags": self.code_block_tags,
        }

    @property
    def executor(self) -> CodeExecutor:
        """The executor that runs the model's code."""
        return self._executor

    @property
    def python_executor(self) -> CodeExecutor:
        """The executor (smolagents' name); its `state` holds the code's variables."""
        return self._executor

    def initialize_system_prompt(self) -> str:
        open_tag, close_tag = self.code_block_tags
        return render(
            self.prompt_templates["system_prompt"],
            code_block_opening_tag=open_tag,
            code_block_closing_tag=close_tag,
            tools=self.tools,
            managed_agents=self.managed_agents,
            authorized_imports="any module"
            if "*" in self.authorized_imports
            else ", ".join(self.authorized_imports),
            structured_note=STRUCTURED_NOTE if self.use_structured_outputs_internally else "",
            custom_instructions=self.instructions or "",
        )

    def write_memory_to_messages(self, summary_mode: bool = False) -> list[Any]:
        """The memory as model messages, as the profile shows a step (summaries: generic)."""
        generic = partial(super().write_memory_to_messages, summary_mode)
        if summary_mode:
            return generic()
        system_prompt = self.memory.system_prompt.system_prompt
        tools = [*self.tools, *self.managed_agents]
        return self.profile.messages(
            system_prompt, self.memory.steps, self.code_block_tags, generic, tools
        )

    def _prepare_run(self, additional_args: dict[str, Any]) -> None:
        callables = {**self.tools, **self.managed_agents}
        self.executor.send_tools(self.approval.held_tools(callables))
        if self.state:
            self.executor.send_variables(dict(self.state))
        self.warm_up()

    def warm_up(self) -> None:
        """Start the executor's worker in the background, if it has one and it is not running.

        `run` calls this so the worker starts while the model writes the first step's code;
        an app may call it earlier, e.g. when a visitor opens the page.
        """
        if not self._executor.running:
            threading.Thread(
                target=_start_quietly, args=(self._executor.start,), daemon=True
            ).start()

    def grant_read_paths(self, paths: Sequence[str | Path]) -> None:
        """Let the code read these folders, instead of those granted before.

        Args:
            paths: Folders the code may read; an empty list takes every grant back.
        """
        self._executor.set_read_paths(list(paths))

    def _step_stream(self, step: ActionStep) -> Generator[AgentEvent, None, None]:
        messages = self.write_memory_to_messages()
        step.model_input_messages = messages
        kwargs: dict[str, Any] = {}
        tools = [*self.tools, *self.managed_agents]
        if self.use_structured_outputs_internally:
            kwargs["response_format"] = STRUCTURED_FORMAT
        else:
            kwargs["stop_sequences"] = code_stop_sequences(self.code_block_tags)
            retry = step.step_number > 1
            kwargs.update(self.profile.step_options(self.model, self.code_block_tags, retry))
        proposal = yield from self.profile.propose(
            lambda options: self._call_model(messages, **options), kwargs, self._draft_trial(tools)
        )
        answer, tried = proposal.message, None
        step.model_output_message = answer
        step.model_output = answer.text
        step.token_usage = proposal.token_usage
        thought = _thought_before(answer.text, self.code_block_tags[0])
        if self.use_structured_outputs_internally:
            thought, code = extract_structured_code(answer.text)
        else:
            if (
                answer.text
                and self.code_block_tags[0] in answer.text
                and not answer.text.rstrip().endswith(self.code_block_tags[1])
            ):
                step.model_output = answer.text + self.code_block_tags[1]
            # A proposal chosen among tried drafts comes with its code, repairs included.
            tried = proposal.tried
            code = tried.code if tried else extract_code(answer.text, *self.code_block_tags)
        repair = tried or self.profile.repair(code, self.task, tools)
        review = self.approval.review_code(step, repair.code, thought)
        note = "\n".join(text for text in (proposal.note, repair.note, review.note) if text)
        if review.code is None:  # skipped: the reason is the observation
            step.observations = note
            yield ActionOutput(output=None, is_final_answer=False)
            return
        code = step.code_action = review.code
        call = ToolCall(name="python_interpreter", arguments=code, id=f"call_{step.step_number}")
        step.tool_calls = [call]
        yield call
        try:
            with self.approval.code_running(step, code, thought, self.executor.interrupt):
                result = yield from self._run_code(code)
        except AgentExecutionError as error:
            logs = f"Execution logs:\n{error.logs}" if error.logs else None
            step.observations = with_note(note, logs)
            if error.state_lost:
                self.state.clear()
            raise
        observation = f"Execution logs:\n{result.logs}" if result.logs else "Execution logs: (none)"
        if not result.is_final_answer:
            observation += f"\nLast output from code snippet:\n{_short(result.output)}"
        step.observations = with_note(note, observation)
        step.observations_images = list(result.images) or None
        step.action_output = result.output
        yield ActionOutput(output=result.output, is_final_answer=result.is_final_answer)

    def _run_code(self, code: str) -> Generator[AgentEvent, None, CodeOutput]:
        """Run the step's code; stream what it prints (`CodeOutputSoFar`) where the executor
        reports output live, and the managed agents' events."""
        executor = self.executor
        if isinstance(executor, ReportsOutput):

            def run(emit: Callable[[AgentEvent], None]) -> CodeOutput:
                report = partial(executor.run_reporting, on_output=_as_event(emit))
                return self.tracing.code_execution(report, code)

            return (yield from relay_while(run, self.managed_agents))
        if self.managed_agents:
            return (
                yield from drain_while(
                    lambda: self.tracing.code_execution(executor, code), self.managed_agents
                )
            )
        return self.tracing.code_execution(executor, code)

    def _draft_trial(self, tools: list[str]) -> DraftTrial | None:
        """What the profile may use to try drafts of this step in the executor; None where
        drafts may not be tried: structured outputs, managed agents (a draft would run a
        whole sub-agent), or approvals (a draft would run before anyone approved it)."""
        if self.use_structured_outputs_internally or self.managed_agents:
            return None
        if self.approval.policy.active:
            return None
        observations = [step.observations or "" for step in current_run(self.memory.steps)]
        return DraftTrial(
            self.model,
            lambda text: extract_code(text, *self.code_block_tags),
            lambda code: self.profile.repair(code, self.task, tools),
            self.executor,
            "\n".join([self.task or "", *observations]),
            self.state.clear,
        )

    def _call_model(
        self, messages: list[ChatMessage], **kwargs: Any
    ) -> Generator[ChatMessageStreamDelta, None, ChatMessage]:
        # Planning and the last answer get the profile's defaults; a step's options win.
        for key, value in self.profile.call_options(self.code_block_tags).items():
            kwargs.setdefault(key, value)
        return (yield from super()._call_model(messages, **kwargs))

    def interrupt(self) -> None:
        """Stop the run: at the next step boundary, and the code running now if any."""
        super().interrupt()
        self._executor.interrupt()

    def close(self) -> None:
        self.executor.close()
        super().close()


def _as_event(emit: Callable[[AgentEvent], None]) -> Callable[[str], None]:
    return lambda text: emit(CodeOutputSoFar(text))


def _thought_before(text: str | None, open_tag: str) -> str | None:
    """What the model wrote before its code (for an approval request)."""
    head = (text or "").split(open_tag, 1)[0].strip()
    return head or None


def _start_quietly(start: Any) -> None:
    try:
        start()
    except Exception:  # the first execution starts it again and reports the error
        logger.debug("executor warm-up failed", exc_info=True)


def _short(value: Any, limit: int = 5000) -> str:
    text = str(value)
    return (
        text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more characters]"
    )
