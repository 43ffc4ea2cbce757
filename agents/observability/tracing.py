"""The loop's tracing: spans for a run, its steps, model calls, tool calls and code runs.

The loop calls `AgentTracing` at a handful of points; with the no-op tracer (the default, see
`agents.observability.tracer`) every call returns at once. Span names and attributes follow the
OpenTelemetry GenAI conventions: `invoke_agent {name}`, `chat {model}`, `execute_tool {name}`
(tool-call spans, also for the tools a CodeAgent's code calls, are opened in
`agents.observability.tool_spans`). Prompts and outputs are recorded only when the tracer
records content (`SMOLUI_TRACE_CONTENT=1`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from agents.errors import AgentExecutionError, AgentInterruptedError
from agents.memory.steps import ActionStep
from agents.observability.genai_attributes import (
    answer_attributes,
    clip,
    messages_json,
    model_name,
    model_system,
)
from agents.observability.tool_spans import activated, active_span, run_in_tool_span
from agents.observability.tracer import NOOP_SPAN, Span, Tracer

CODE_TOOL = "python_interpreter"

_context_attributes: ContextVar[Mapping[str, Any] | None] = ContextVar(
    "trace_attributes", default=None
)


@contextmanager
def trace_attributes(conversation_id: str | None = None, user: str | None = None) -> Iterator[None]:
    """Attach the conversation id and user to the runs started inside this block.

    Args:
        conversation_id: The conversation (`gen_ai.conversation.id`).
        user: The signed-in user (`user.id`); never a secret such as a browser key.
    """
    extra = {"gen_ai.conversation.id": conversation_id, "user.id": user}
    merged = {**(_context_attributes.get() or {}), **{k: v for k, v in extra.items() if v}}
    token = _context_attributes.set(merged)
    try:
        yield
    finally:
        _context_attributes.reset(token)


class AgentTracing:
    """An agent's tracing: the loop calls it at each run, step, model call, tool call and code
    run. Off (a no-op tracer), every call returns at once.

    Args:
        tracer: Where spans go; set `tracer` later to trace an existing agent.
    """

    def __init__(self, tracer: Tracer):
        self.tracer = tracer
        self._run: Span = NOOP_SPAN
        self._step: Span | None = None
        self._tokens = [0, 0]

    @property
    def enabled(self) -> bool:
        return self.tracer.enabled

    def _parent(self) -> Span:
        return self._step if self._step is not None else self._run

    def run(
        self, events: Generator[Any, None, None], agent_name: str, model: Any, task: str
    ) -> Generator[Any, None, None]:
        """Wrap a run's event stream in an `invoke_agent` span (called when the run starts).

        Args:
            events: The run's events.
            agent_name: The agent's name.
            model: The agent's model.
            task: The task, recorded only when content recording is on.
        """
        if not self.tracer.enabled:
            return events
        attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": agent_name,
            "gen_ai.request.model": model_name(model),
            **(_context_attributes.get() or {}),
        }
        if self.tracer.record_content:
            attributes["gen_ai.input.messages"] = clip(task)
        active = active_span()  # a managed agent's run nests under its manager's tool call
        parent = active.span if active is not None else None
        return self._traced_run(events, f"invoke_agent {agent_name}", attributes, parent)

    def _traced_run(
        self,
        events: Generator[Any, None, None],
        name: str,
        attributes: dict[str, Any],
        parent: Span | None,
    ) -> Generator[Any, None, None]:
        from agents.memory.steps import FinalAnswerStep

        span = self._run = self.tracer.start_span(name, parent, attributes)
        self._step, self._tokens = None, [0, 0]
        outcome = "success"
        try:
            for event in events:
                if isinstance(event, FinalAnswerStep) and self.tracer.record_content:
                    span.set_attributes({"gen_ai.output.messages": clip(event.output)})
                yield event
        except GeneratorExit:  # the consumer stopped: let the loop record its step first
            outcome = "interrupted"
            events.close()
            raise
        except AgentInterruptedError:
            outcome = "interrupted"
            raise
        except BaseException as error:
            outcome = "error"
            span.record_error(error)
            raise
        finally:
            self._end_step(None)
            span.set_attributes(
                {
                    "smolui.run.outcome": outcome,
                    "gen_ai.usage.input_tokens": self._tokens[0],
                    "gen_ai.usage.output_tokens": self._tokens[1],
                }
            )
            span.end()
            self._run = NOOP_SPAN

    def step_started(self, step_number: int) -> None:
        """Open the span of an action step.

        Args:
            step_number: The step's number in this run.
        """
        if self.tracer.enabled:
            self._end_step(None)
            self._step = self.tracer.start_span(
                "step", self._run, {"smolui.step.number": step_number}
            )

    def step_ended(self, step: Any) -> None:
        """Count a finished step's tokens, and close its span (with its error, if any).

        Args:
            step: The `ActionStep` or `PlanningStep` just recorded.
        """
        if not self.tracer.enabled:
            return
        usage = step.token_usage
        if usage is not None:
            self._tokens[0] += usage.input_tokens
            self._tokens[1] += usage.output_tokens
        self._end_step(step)

    def _end_step(self, step: Any) -> None:
        span, self._step = self._step, None
        if span is None:
            return
        if step is not None:
            usage = step.token_usage
            if usage is not None:
                span.set_attributes(
                    {
                        "gen_ai.usage.input_tokens": usage.input_tokens,
                        "gen_ai.usage.output_tokens": usage.output_tokens,
                    }
                )
            error = step.error if isinstance(step, ActionStep) else None
            if isinstance(error, AgentInterruptedError):  # a stop is not a failure
                span.set_attributes({"smolui.step.interrupted": True})
            elif error is not None:
                span.record_error(error)
        span.end()

    def model_call(
        self, calls: Generator[Any, None, Any], model: Any, messages: list[Any]
    ) -> Generator[Any, None, Any]:
        """Wrap one model call (a generator of stream deltas returning the message) in a
        `chat {model}` span.

        Args:
            calls: The call, as the loop's `_call_model` generator.
            model: The model called.
            messages: The prompt, recorded only when content recording is on.
        """
        if not self.tracer.enabled:
            return calls
        return self._traced_model_call(calls, model, messages)

    def _traced_model_call(
        self, calls: Generator[Any, None, Any], model: Any, messages: list[Any]
    ) -> Generator[Any, None, Any]:
        name = model_name(model)
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.system": model_system(model),
            "gen_ai.request.model": name,
        }
        if self.tracer.record_content:
            attributes["gen_ai.input.messages"] = messages_json(messages)
        span = self.tracer.start_span(f"chat {name}", self._parent(), attributes, client=True)
        try:
            answer = yield from calls
            span.set_attributes(answer_attributes(answer, self.tracer.record_content))
            return answer
        except GeneratorExit:
            raise
        except BaseException as error:
            span.record_error(error)
            raise
        finally:
            span.end()

    def tool_call(
        self, function: Callable[..., Any], name: str, arguments: Any, call_id: str
    ) -> Any:
        """Run `function(name, arguments)` in an `execute_tool {name}` span.

        Args:
            function: Runs the tool (the agent's `execute_tool_call`).
            name: The tool's name.
            arguments: Its arguments.
            call_id: The model's id for this call.
        """
        if not self.tracer.enabled:
            return function(name, arguments)
        return run_in_tool_span(
            self.tracer,
            self._parent(),
            name,
            lambda: function(name, arguments),
            arguments,
            call_id or "",
        )

    def approval(self, record: Any, step_number: int) -> None:
        """Record a person's answer to an approval request as a `smolui.approval` event on
        the step's span. The reason and what was proposed or edited are recorded only when
        content recording is on.

        Args:
            record: The `ApprovalRecord` kept on the step.
            step_number: The step it belongs to.
        """
        if not self.tracer.enabled:
            return
        attributes: dict[str, Any] = {
            "smolui.approval.kind": record.kind,
            "smolui.approval.decision": record.decision,
            "smolui.approval.waited_s": round(record.waited, 3),
            "smolui.step.number": step_number,
        }
        if record.tool_name:
            attributes["gen_ai.tool.name"] = record.tool_name
        if self.tracer.record_content:
            attributes["smolui.approval.proposed"] = clip(record.proposed)
            if record.decision == "edit":
                attributes["smolui.approval.ran"] = clip(record.ran)
            if record.reason:
                attributes["smolui.approval.reason"] = clip(record.reason)
        self._parent().add_event("smolui.approval", attributes)

    def code_execution(self, executor: Callable[[str], Any], code: str) -> Any:
        """Run `executor(code)` in an `execute_tool python_interpreter` span, with its outcome
        (`smolui.code.outcome`: ok, final_answer, error or state_lost). The tools the code
        calls get their spans under it (see `agents.observability.tool_spans`).

        Args:
            executor: The agent's executor.
            code: The code to run (recorded only when content recording is on).
        """
        if not self.tracer.enabled:
            return executor(code)
        attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": CODE_TOOL}
        if self.tracer.record_content:
            attributes["gen_ai.tool.call.arguments"] = clip(code)
        span = self.tracer.start_span(f"execute_tool {CODE_TOOL}", self._parent(), attributes)
        try:
            with activated(self.tracer, span):
                result = executor(code)
            outcome = "final_answer" if result.is_final_answer else "ok"
            span.set_attributes({"smolui.code.outcome": outcome})
            if self.tracer.record_content:
                span.set_attributes({"gen_ai.tool.call.result": clip(result.logs)})
            return result
        except BaseException as error:
            lost = isinstance(error, AgentExecutionError) and error.state_lost
            span.set_attributes({"smolui.code.outcome": "state_lost" if lost else "error"})
            span.record_error(error)
            raise
        finally:
            span.end()
