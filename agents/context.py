"""Keep the prompt inside the model's context window, however long the conversation.

The system prompt, the current task and the latest steps stay whole. Older steps are first
shortened (long observations and outputs cut), then dropped oldest first, and a note tells
the model what was left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agents.models.messages import ChatMessage, MessageRole

SHORTENED_CHARS = 400
IMAGE_TOKENS = 800
PROTECTED_LATEST_STEPS = 2


@dataclass
class StepMessages:
    """The messages of one memory step, and whether it may be shortened or dropped."""

    messages: list[ChatMessage]
    is_task: bool = False
    protected: bool = False


def default_budget(context_size: int | None) -> int:
    """Tokens the prompt may use: the context size less room for the answer."""
    if not context_size:
        return 24_000
    return max(512, context_size - min(4096, context_size // 4))


def fit_to_budget(
    head: list[ChatMessage],
    groups: list[StepMessages],
    budget: int,
    count_tokens: Callable[[str], int],
) -> list[ChatMessage]:
    """Return `head` + the groups' messages, shortened and trimmed to fit `budget` tokens."""

    def cost(messages: list[ChatMessage]) -> int:
        return sum(_message_tokens(m, count_tokens) for m in messages)

    sizes = [cost(g.messages) for g in groups]
    total = cost(head) + sum(sizes)
    if total <= budget:
        return head + [m for g in groups for m in g.messages]
    for index, group in enumerate(groups):
        if total <= budget:
            break
        if group.protected or group.is_task:
            continue
        group.messages = [_shorten(m) for m in group.messages]
        new_size = cost(group.messages)
        total -= sizes[index] - new_size
        sizes[index] = new_size
    dropped_steps = dropped_tasks = 0
    kept: list[StepMessages] = []
    for index, group in enumerate(groups):
        if total > budget and not group.protected:
            total -= sizes[index]
            dropped_tasks += group.is_task
            dropped_steps += not group.is_task
            continue
        kept.append(group)
    for group in kept[:-1]:  # still too big: even the latest steps but the last are cut
        if total <= budget:
            break
        if not group.is_task:
            before = cost(group.messages)
            group.messages = [_shorten(m) for m in group.messages]
            total -= before - cost(group.messages)
    out = list(head)
    if dropped_steps or dropped_tasks:
        out.append(_marker(dropped_steps, dropped_tasks))
    out += [m for g in kept for m in g.messages]
    return out


def _message_tokens(message: ChatMessage, count_tokens: Callable[[str], int]) -> int:
    content = message.content
    if isinstance(content, list):
        images = sum(1 for block in content if block.get("type") == "image")
        return 4 + count_tokens(message.text) + images * IMAGE_TOKENS
    return 4 + count_tokens(message.text)


def _shorten(message: ChatMessage) -> ChatMessage:
    text = message.text
    if len(text) > SHORTENED_CHARS:
        text = text[:SHORTENED_CHARS] + f" [... {len(text) - SHORTENED_CHARS} characters left out]"
    return ChatMessage(role=message.role, content=[{"type": "text", "text": text}])


def _marker(steps: int, tasks: int) -> ChatMessage:
    parts = []
    if tasks:
        parts.append(f"{tasks} earlier task{'s' if tasks != 1 else ''}")
    if steps:
        parts.append(f"{steps} earlier step{'s' if steps != 1 else ''}")
    note = (
        f"[Note: {' and '.join(parts)} of this conversation were left out to fit the "
        "model's context window. Ask the user if you need them.]"
    )
    return ChatMessage(role=MessageRole.USER.value, content=[{"type": "text", "text": note}])
