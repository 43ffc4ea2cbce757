"""`CodeAgent`: the model writes Python; an executor runs it; prints become observations."""

from __future__ import annotations

import logging
import threading
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError, AgentExecutionError
from agents.events import AgentEvent
from agents.executors import CodeExecutor, create_executor
from agents.executors.python_runner import BASE_AUTHORIZED_IMPORTS
from agents.loop.agent import MultiStepAgent
from agents.loop.config import CodeAgentConfig
from agents.loop.last_answer import current_run
from agents.loop.parsing import extract_code, extract_structured_code
from agents.loop.repair import repair_code, with_note
from agents.loop.sub_agents import drain_while
from agents.memory.steps import ActionOutput, ActionStep, ToolCall
from agents.models.messages import ChatMessage, ChatMessageStreamDelta
from agents.prompts import render
from agents.prompts.code_tags import code_stop_sequences, resolve_code_block_tags
from agents.small_model.profile import SmallModelProfile, select_profile
from agents.small_model.vote import Ballot, DraftJudge, quietly, vote

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
        small_model: Use the small-model profile (short prompt, grammar, token cap, drafts;
            see `agents.small_model.profile`): True or False, None to choose it for tiny models, or
            a `SmallModelProfile`.
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
        small_model: bool | SmallModelProfile | None = None,
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
        self.small_model_profile = select_profile(model, small_model)
        if self.small_model_profile is not None:
            self.prompt_file = self.small_model_profile.prompt_file
            kwargs["max_steps"] = self.small_model_profile.steps_per_run(kwargs.get("max_steps"))
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
        """The memory as model messages; a small model gets its short transcript."""
        if self.small_model_profile is None or summary_mode:
            return super().write_memory_to_messages(summary_mode)
        system_prompt = self.memory.system_prompt.system_prompt
        return self.small_model_profile.messages(
            system_prompt, self.memory.steps, self.code_block_tags
        )

    def _prepare_run(self, additional_args: dict[str, Any]) -> None:
        callables = {**self.tools, **self.managed_agents}
        self.executor.send_tools(callables)
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
        if self.use_structured_outputs_internally:
            kwargs["response_format"] = STRUCTURED_FORMAT
        else:
            kwargs["stop_sequences"] = code_stop_sequences(self.code_block_tags)
            if self.small_model_profile is not None:
                profile, retry = self.small_model_profile, step.step_number > 1
                kwargs.update(profile.step_kwargs(self.model, self.code_block_tags, retry))
        ballot, tried = None, None
        if self._drafts() > 1 and not self.use_structured_outputs_internally:
            ballot = yield from self._vote(messages, kwargs)
            answer = ballot.chosen.message
        else:
            answer = yield from self._call_model(messages, **kwargs)
        step.model_output_message = answer
        step.model_output = answer.text
        step.token_usage = ballot.token_usage if ballot is not None else answer.token_usage
        if self.use_structured_outputs_internally:
            _, code = extract_structured_code(answer.text)
        else:
            if (
                answer.text
                and self.code_block_tags[0] in answer.text
                and not answer.text.rstrip().endswith(self.code_block_tags[1])
            ):
                step.model_output = answer.text + self.code_block_tags[1]
            # A draft chosen by vote comes with the code that was tried, repairs included.
            tried = ballot.chosen.repair if ballot is not None else None
            code = tried.code if tried else extract_code(answer.text, *self.code_block_tags)
        small = self.small_model_profile is not None
        repair = tried or repair_code(code, self.task, small, [*self.tools, *self.managed_agents])
        code = step.code_action = repair.code
        note = "\n".join(text for text in (ballot.note if ballot else "", repair.note) if text)
        call = ToolCall(name="python_interpreter", arguments=code, id=f"call_{step.step_number}")
        step.tool_calls = [call]
        yield call
        try:
            if self.managed_agents:
                result = yield from drain_while(
                    lambda: self.tracing.code_execution(self.executor, code), self.managed_agents
                )
            else:
                result = self.tracing.code_execution(self.executor, code)
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

    def _drafts(self) -> int:
        """How many drafts a step writes and votes on (1: none; see `agents.small_model.vote`)."""
        if self.small_model_profile is None or self.managed_agents:
            return 1
        return self.small_model_profile.drafts_for(self.model)

    def _vote(
        self, messages: list[ChatMessage], kwargs: dict[str, Any]
    ) -> Generator[ChatMessageStreamDelta, None, Ballot]:
        """A small model's drafts of one step, each tried in the executor, and the one chosen.

        Only the first draft streams; the step shows the chosen one.
        """
        profile, tools = self.small_model_profile, [*self.tools, *self.managed_agents]
        observations = [step.observations or "" for step in current_run(self.memory.steps)]
        judge = DraftJudge(
            lambda text: extract_code(text, *self.code_block_tags),
            lambda code: repair_code(code, self.task, True, tools),
            self.executor,
            "\n".join([self.task or "", *observations]),
            self.state.clear,
        )

        def write(index: int) -> Generator[ChatMessageStreamDelta, None, ChatMessage]:
            calls = self._call_model(messages, **profile.draft_kwargs(kwargs, index))
            if index == 0:
                return (yield from calls)
            return (yield from quietly(calls))

        return (yield from vote(write, judge, self._drafts()))

    def _call_model(
        self, messages: list[ChatMessage], **kwargs: Any
    ) -> Generator[ChatMessageStreamDelta, None, ChatMessage]:
        # A small model's planning and last answer get the same token cap as its steps, and
        # its last answer (written like a step) ends where a step would.
        if self.small_model_profile is not None:
            kwargs.setdefault("max_tokens", self.small_model_profile.max_tokens)
            kwargs.setdefault("stop_sequences", code_stop_sequences(self.code_block_tags))
        return (yield from super()._call_model(messages, **kwargs))

    def interrupt(self) -> None:
        """Stop the run: at the next step boundary, and the code running now if any."""
        super().interrupt()
        self._executor.interrupt()

    def close(self) -> None:
        self.executor.close()
        super().close()


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
