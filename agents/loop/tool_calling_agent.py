"""`ToolCallingAgent`: the model calls tools natively (or as JSON in text); we run them."""

from __future__ import annotations

import contextvars
from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agents.approval.gate import SkippedCall
from agents.errors import AgentToolCallError, AgentToolExecutionError
from agents.events import AgentEvent
from agents.executors.python_runner import is_pil_image
from agents.loop.agent import MultiStepAgent
from agents.loop.config import ToolCallingAgentConfig
from agents.loop.profile import ModelProfile, choose_profile
from agents.loop.sub_agents import drain_while
from agents.memory.steps import ActionOutput, ActionStep, ToolCall, ToolOutput
from agents.models.base import tool_schemas
from agents.models.messages import ChatMessage, ChatMessageStreamDelta
from agents.models.tool_call_text import parse_arguments
from agents.prompts import render
from tools.base import ToolArgumentError, format_output

MAX_PARALLEL_CALLS = 4


class ToolCallingAgent(MultiStepAgent):
    """An agent whose actions are tool calls; several calls of one step run in parallel.

    Args:
        tools: Tools the model may call.
        model: The model; native tool calling is used where the backend has it.
        max_tool_threads: How many calls of one step may run at once.
        small_model: The model's profile (`agents.loop.profile.ModelProfile`); or True or
            False to force the bundled tiny model's profile (a JSON grammar built from the
            tools, a token cap) on or off, None to choose it by model.
        **kwargs: See `MultiStepAgent`.
    """

    prompt_file = "toolcalling_agent"
    _base_tools_with_interpreter = True

    def __init__(
        self,
        tools: list[Any],
        model: Any,
        max_tool_threads: int | None = None,
        small_model: bool | ModelProfile | None = None,
        **kwargs: Any,
    ):
        config = ToolCallingAgentConfig(
            tools, model, max_tool_threads=max_tool_threads, small_model=small_model, **kwargs
        )
        self.max_tool_threads = max_tool_threads or MAX_PARALLEL_CALLS
        self.profile: ModelProfile = choose_profile(model, small_model)
        super().__init__(tools, model, **kwargs)
        self.config: ToolCallingAgentConfig = config

    def initialize_system_prompt(self) -> str:
        return render(
            self.prompt_templates["system_prompt"],
            tools=self.tools,
            managed_agents=self.managed_agents,
            custom_instructions=self.instructions or "",
        )

    @property
    def callables(self) -> dict[str, Any]:
        return {**self.tools, **self.managed_agents}

    def _step_stream(self, step: ActionStep) -> Generator[AgentEvent, None, None]:
        messages = self.write_memory_to_messages()
        step.model_input_messages = messages
        tools = list(self.callables.values())
        kwargs: dict[str, Any] = {}
        # An agent-wide grammar= of the user's wins over the profile's options.
        if self.grammar is None:
            kwargs = self.profile.tool_step_options(self.model, tool_schemas(tools))
        answer = yield from self._call_model(
            messages,
            tools_to_call_from=tools,
            stop_sequences=["Observation:", "Calling tools:"],
            **kwargs,
        )
        step.model_output_message = answer
        step.model_output = answer.text
        step.token_usage = answer.token_usage
        answer = self.model.parse_tool_calls(answer)
        yield from self.process_tool_calls(answer, step)

    def _call_model(
        self, messages: list[ChatMessage], **kwargs: Any
    ) -> Generator[ChatMessageStreamDelta, None, ChatMessage]:
        # Planning and the last answer get the profile's defaults; a step's options win.
        for key, value in self.profile.tool_call_options().items():
            kwargs.setdefault(key, value)
        return (yield from super()._call_model(messages, **kwargs))

    def process_tool_calls(
        self, chat_message: ChatMessage, memory_step: ActionStep
    ) -> Generator[AgentEvent, None, None]:
        """Run the tool calls of a model message and record them in `memory_step`.

        Calls the agent's approval policy holds are asked about first, in order (a skipped
        call's result is the reason; a stop ends the run before any call runs). Yields each
        `ToolCall` (as it will run) before it runs, a `ToolOutput` per result, then the
        step's `ActionOutput`.

        Args:
            chat_message: The model's message, with `tool_calls` set.
            memory_step: The step that records the calls and observations.
        """
        proposed = [
            ToolCall(c.function.name, parse_arguments(c.function.arguments), c.id)
            for c in chat_message.tool_calls or []
        ]
        thought = (chat_message.text or "").strip() or None
        reviewed = self.approval.review_calls(memory_step, proposed, self.callables, thought)
        calls = [r.call if isinstance(r, SkippedCall) else r for r in reviewed]
        memory_step.tool_calls = calls
        yield from calls
        if self.managed_agents and any(c.name in self.managed_agents for c in calls):
            results = yield from drain_while(lambda: self._run_calls(reviewed), self.managed_agents)
        else:
            results = self._run_calls(reviewed)
        yield from self._record(memory_step, calls, results)

    def _run_calls(self, calls: list[ToolCall | SkippedCall]) -> list[tuple[Any, Exception | None]]:
        if len(calls) == 1:
            return [self._safe_call(calls[0])]
        # Each call runs in its own copy of the caller's context (a context can be entered by
        # one thread at a time): OpenTelemetry's current span, the conversation's trace
        # attributes and any other context variable reach the calls as they reach a single one.
        with ThreadPoolExecutor(max_workers=min(self.max_tool_threads, len(calls))) as pool:
            runs = [pool.submit(contextvars.copy_context().run, self._safe_call, c) for c in calls]
            return [run.result() for run in runs]

    def _safe_call(self, call: ToolCall | SkippedCall) -> tuple[Any, Exception | None]:
        if isinstance(call, SkippedCall):  # not run: the person's reason stands for its result
            return call.observation, None
        try:
            return self.tracing.tool_call(
                self.execute_tool_call, call.name, call.arguments, call.id
            ), None
        except (AgentToolCallError, AgentToolExecutionError) as error:
            return None, error

    def _record(
        self, step: ActionStep, calls: list[ToolCall], results: list[tuple[Any, Exception | None]]
    ) -> Generator[AgentEvent, None, None]:
        observations, images, errors = [], [], []
        final, has_final = None, False
        for call, (value, error) in zip(calls, results, strict=True):
            if error is not None:
                errors.append(f"{call.name}: {error}")
                continue
            if call.name == "final_answer":
                final, has_final = value, True
                observation = str(value)
            elif is_pil_image(value):
                key = f"image_{sum(k.startswith('image_') for k in self.state) + 1}"
                self.state[key] = value
                images.append(value)
                observation = f"Stored the image as '{key}'; pass '{key}' to use it."
            else:
                observation = format_output(value)
            observations.append(observation if len(calls) == 1 else f"{call.name}: {observation}")
            yield ToolOutput(call.id, value, call.name == "final_answer", observation, call)
        step.observations = "\n".join(observations) if observations else None
        step.observations_images = images or None
        if errors:
            raise AgentToolCallError("\n".join(errors))
        step.action_output = final
        yield ActionOutput(output=final, is_final_answer=has_final)

    def execute_tool_call(self, tool_name: str, arguments: dict[str, Any] | str) -> Any:
        """Run one tool or managed agent; state variables named in arguments are resolved.

        Raises:
            AgentToolCallError: Unknown tool or wrong arguments (the model must fix its call).
            AgentToolExecutionError: The tool raised.
        """
        available = self.callables
        if tool_name not in available:
            raise AgentToolCallError(
                f"Unknown tool '{tool_name}'. Available tools: {', '.join(sorted(available))}."
            )
        tool = available[tool_name]
        arguments = self._resolve_state(parse_arguments(arguments))
        if not isinstance(arguments, dict):
            if len(tool.inputs) != 1:
                raise AgentToolCallError(
                    f"Tool '{tool_name}' takes named arguments as an object. {tool.usage()}"
                )
            arguments = {next(iter(tool.inputs)): arguments}
        try:
            tool.validate_arguments(arguments)
        except ToolArgumentError as error:
            raise AgentToolCallError(str(error)) from error
        try:
            return tool(**arguments)
        except Exception as error:
            raise AgentToolExecutionError(
                f"Tool '{tool_name}' failed with {type(error).__name__}: {error}. "
                f"Arguments were {arguments!r}. {tool.usage()}"
            ) from error

    def _resolve_state(self, arguments: Any) -> Any:
        if isinstance(arguments, str):
            return self.state.get(arguments, arguments)
        if isinstance(arguments, dict):
            return {
                key: self.state[value] if isinstance(value, str) and value in self.state else value
                for key, value in arguments.items()
            }
        return arguments
