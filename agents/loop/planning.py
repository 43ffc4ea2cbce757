"""Planning steps, and the last answer from memory when `max_steps` runs out."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from agents.errors import AgentMaxStepsError
from agents.memory.steps import ActionStep, PlanningStep, Timing
from agents.models.messages import ChatMessage, MessageRole
from agents.prompts import render


def _user(text: str) -> ChatMessage:
    return ChatMessage(role=MessageRole.USER.value, content=[{"type": "text", "text": text}])


def _system(text: str) -> ChatMessage:
    return ChatMessage(role=MessageRole.SYSTEM.value, content=[{"type": "text", "text": text}])


def planning_step(agent: Any, task: str, max_steps: int) -> Generator[Any, None, None]:
    """Write an initial plan (step 1) or an updated one, record it, and yield it."""
    templates = agent.prompt_templates["planning"]
    tools, managed = agent.tools, agent.managed_agents
    timing = Timing()
    if agent.step_number == 1 and not _has_plan_for_current_task(agent):
        initial = render(templates["initial_plan"], task=task, tools=tools, managed_agents=managed)
        messages = [_user(initial)]
    else:
        remaining = max_steps - agent.step_number + 1
        history = agent.write_memory_to_messages(summary_mode=True)[1:]
        messages = [
            _system(render(templates["update_plan_pre_messages"], task=task)),
            *history,
            _user(
                render(
                    templates["update_plan_post_messages"],
                    task=task,
                    tools=tools,
                    managed_agents=managed,
                    remaining_steps=remaining,
                )
            ),
        ]
    answer = yield from agent._call_model(messages, stop_sequences=["<end_plan>"])
    step = PlanningStep(
        model_input_messages=messages,
        model_output_message=answer,
        plan=answer.text.strip(),
        timing=timing,
        token_usage=answer.token_usage,
    )
    agent._finish_step(step)
    yield step


def _has_plan_for_current_task(agent: Any) -> bool:
    for step in reversed(agent.memory.steps):
        if isinstance(step, PlanningStep):
            return True
        if type(step).__name__ == "TaskStep":
            return False
    return False


def final_answer_messages(agent: Any, task: str, images: list[Any] | None) -> list[ChatMessage]:
    """The messages that ask for a final answer from the memory so far."""
    templates = agent.prompt_templates["final_answer"]
    content: list[dict[str, Any]] = [
        {"type": "text", "text": render(templates["post_messages"], task=task)}
    ]
    content += [{"type": "image", "image": image} for image in images or []]
    return [
        _system(render(templates["pre_messages"])),
        *agent.write_memory_to_messages()[1:],
        ChatMessage(role=MessageRole.USER.value, content=content),
    ]


def answer_after_max_steps(
    agent: Any, task: str, images: list[Any] | None
) -> Generator[Any, None, Any]:
    """One last model call that answers from memory; recorded as a step with the error."""
    step = ActionStep(step_number=agent.step_number, timing=Timing())
    step.error = AgentMaxStepsError(
        f"Reached the maximum number of steps ({agent.step_number - 1}) without a final answer."
    )
    messages = final_answer_messages(agent, task, images)
    step.model_input_messages = messages
    try:
        answer = yield from agent._call_model(messages)
    except Exception:
        agent._finish_step(step)
        raise
    step.model_output_message = answer
    step.model_output = answer.text
    step.token_usage = answer.token_usage
    step.action_output = agent.profile.last_answer(answer.text, agent.memory.steps)
    step.is_final_answer = True
    agent._finish_step(step)
    yield step
    return step.action_output
