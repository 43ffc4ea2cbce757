"""Keep the prompt inside the model's context window, however long the conversation.

The system prompt, the current task and the latest steps stay whole. Older steps are first
shortened (long observations and outputs cut), then dropped oldest first, and a note tells
the model what was left out.

The work is incremental, so a step costs the same at step 400 as at step 10: each memory
step becomes messages and is counted once (again only when one of its fields is assigned),
and a new step continues the trimming where the previous one stopped.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from agents.memory.step_tracking import StepList, mark_in_prompt, prompt_changes
from agents.memory.steps import MemoryStep, SystemPromptStep, TaskStep
from agents.models.messages import ChatMessage, MessageRole

SHORTENED_CHARS = 400
IMAGE_TOKENS = 800
PROTECTED_LATEST_STEPS = 2

_FULL, _SHORT, _DROPPED = "full", "short", "dropped"
_stamp_of = operator.attrgetter("stamp")


@dataclass(eq=False)
class StepMessages:
    """The messages of one memory step, and whether it may be shortened or dropped.

    Args:
        messages: The step's messages, whole.
        is_task: A task step (dropped, never shortened).
        protected: Never shortened or dropped (the current task, the latest steps).
    """

    messages: list[ChatMessage]
    is_task: bool = False
    protected: bool = False
    size: int = field(default=-1, init=False)  # tokens, counted when it joins a `Trimming`
    form: str = field(default=_FULL, init=False)
    _short: list[ChatMessage] | None = field(default=None, init=False, repr=False)
    _short_size: int = field(default=0, init=False, repr=False)

    def short(self, count_tokens: Callable[[str], int]) -> tuple[list[ChatMessage], int]:
        """The shortened messages and their tokens (made once)."""
        if self._short is None:
            self._short = [_shorten(m) for m in self.messages]
            self._short_size = _cost(self._short, count_tokens)
        return self._short, self._short_size

    @property
    def current(self) -> list[ChatMessage]:
        return self._short if self.form == _SHORT and self._short is not None else self.messages


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
    """Return `head` + the groups' messages, shortened and trimmed to fit `budget` tokens.

    Args:
        head: Messages always sent whole (the system prompt).
        groups: The memory steps' messages, oldest first.
        budget: Tokens the prompt may use.
        count_tokens: The model's token counter.
    """
    trimming = Trimming(_cost(head, count_tokens), budget, count_tokens)
    for index, group in enumerate(groups):
        trimming.add(group)
        if not group.protected:
            trimming.unprotect(index)
    trimming.advance()
    return trimming.messages(head)


class Trimming:
    """Which groups are whole, shortened or dropped, kept up to date as groups are added.

    Groups leave protection in order (`unprotect`), oldest first; `advance` shortens the
    unprotected ones, oldest first, while the prompt is over budget, then drops them.

    Args:
        head_size: Tokens of the messages always sent (the system prompt).
        budget: Tokens the prompt may use.
        count_tokens: The model's token counter.
    """

    def __init__(self, head_size: int, budget: int, count_tokens: Callable[[str], int]):
        self.budget, self.count_tokens = budget, count_tokens
        self.groups: list[StepMessages] = []
        self._unprotected: list[StepMessages] = []
        self._shortened = self._dropped = 0  # how far each pass went along `_unprotected`
        self._total = head_size  # shortening decisions count dropped groups too
        self._kept = head_size
        self._dropped_tasks = 0
        self._flat: list[ChatMessage] | None = []

    def add(self, group: StepMessages) -> None:
        """Add the newest group, protected until `unprotect` names it."""
        if group.size < 0:
            group.size = _cost(group.messages, self.count_tokens)
        group.form = _FULL
        self.groups.append(group)
        self._total += group.size
        self._kept += group.size
        if self._flat is not None:
            self._flat.extend(group.messages)

    def unprotect(self, index: int) -> None:
        """Let the group at `index` be shortened and dropped (after every older one)."""
        self._unprotected.append(self.groups[index])

    def advance(self) -> None:
        """Shorten, then drop, unprotected groups oldest first until the prompt fits.

        The result is the one of shortening every group in order and then dropping, as
        if all groups came at once: shortening only ever goes further, dropping may go back.
        """
        budget, unprotected = self.budget, self._unprotected
        while self._total > budget and self._shortened < len(unprotected):
            group = unprotected[self._shortened]
            self._shortened += 1
            if not group.is_task:
                _, size = group.short(self.count_tokens)
                self._total -= group.size - size
                self._kept -= group.size - size
                group.form, self._flat = _SHORT, None
        # Shortening a group that just lost its protection may make room for dropped ones.
        while (
            self._dropped and self._kept + self._kept_size(unprotected[self._dropped - 1]) <= budget
        ):
            self._dropped -= 1
            group = unprotected[self._dropped]
            self._kept += self._kept_size(group)
            self._dropped_tasks -= group.is_task
            group.form, self._flat = _FULL if group.is_task else _SHORT, None
        while self._kept > budget and self._dropped < len(unprotected):
            group = unprotected[self._dropped]
            self._dropped += 1
            self._kept -= self._kept_size(group)
            self._dropped_tasks += group.is_task
            group.form, self._flat = _DROPPED, None

    def _kept_size(self, group: StepMessages) -> int:
        """Tokens of a group the shortening pass went over: tasks whole, steps shortened."""
        return group.size if group.is_task else group.short(self.count_tokens)[1]

    def messages(self, head: list[ChatMessage]) -> list[ChatMessage]:
        """`head`, a note on what was left out, then the kept groups' messages."""
        out = list(head)
        if self._dropped:
            out.append(_marker(self._dropped - self._dropped_tasks, self._dropped_tasks))
        if self._kept > self.budget:
            return out + self._squeezed()
        if self._flat is None:
            self._flat = [m for g in self.groups if g.form != _DROPPED for m in g.current]
        return out + self._flat

    def _squeezed(self) -> list[ChatMessage]:
        """Still too big with every unprotected group dropped: shorten the protected ones too
        (never a task, never the newest step), oldest first, for this prompt only."""
        kept = [g for g in self.groups if g.form != _DROPPED]
        total, out = self._kept, []
        for position, group in enumerate(kept):
            messages = group.current
            if total > self.budget and position < len(kept) - 1 and not group.is_task:
                messages = [_shorten(m) for m in messages]
                total -= group.size - _cost(messages, self.count_tokens)
            out += messages
        return out


class ContextWindow:
    """The memory as model messages within a token budget, kept from one step to the next.

    A step's messages are reused while the step is unchanged (`MemoryStep.stamp`); steps
    appended since the last call only extend the trimming, anything else rebuilds it. With
    the memory's own list (`StepList`) telling the two apart takes constant time.

    Args:
        summary_mode: Render steps in summary mode (no model outputs, no system prompt).
    """

    def __init__(self, summary_mode: bool = False):
        self.summary_mode = summary_mode
        self._key: tuple | None = None
        self._head: list[ChatMessage] = []
        self._steps: list[MemoryStep] | None = None
        self._seen = (-1, -1)  # the list's version and prompt_changes() when last checked
        self._stamps: list[int] = []  # of the steps rendered, in order
        self._last_task = -1
        self._trimming: Trimming | None = None

    def messages(
        self,
        system_prompt: SystemPromptStep,
        steps: list[MemoryStep],
        budget: int,
        count_tokens: Callable[[str], int],
    ) -> list[ChatMessage]:
        """The system prompt and the steps as messages, trimmed to `budget` tokens.

        Args:
            system_prompt: The system prompt step.
            steps: The memory steps, oldest first.
            budget: Tokens the prompt may use; 0 for no limit.
            count_tokens: The model's token counter.
        """
        key = (system_prompt.system_prompt, budget, count_tokens)
        known = len(self._stamps)
        if (
            self._trimming is None
            or key != self._key
            or not self._only_appended(steps, known)
            # a new task: the previous one loses its protection, out of the usual order
            or any(isinstance(step, TaskStep) for step in steps[known:])
        ):
            self._rebuild(key, system_prompt, steps)
        elif len(steps) > known:
            self._append(steps, known)
        version = steps.version if isinstance(steps, StepList) else -1
        self._steps, self._seen = steps, (version, prompt_changes())
        return self._trimming.messages(self._head)

    def _only_appended(self, steps: list[MemoryStep], known: int) -> bool:
        """Whether the steps are those rendered last time, unchanged, and maybe new ones."""
        if len(steps) < known:
            return False
        if (
            isinstance(steps, StepList)
            and steps is self._steps
            and (steps.version, prompt_changes()) == self._seen
        ):
            return True
        return list(map(_stamp_of, steps[:known])) == self._stamps

    def _rebuild(
        self, key: tuple, system_prompt: SystemPromptStep, steps: list[MemoryStep]
    ) -> None:
        reusable: dict[int, StepMessages] = {}
        if self._trimming is not None and key[2] == self._key[2]:
            reusable = dict(zip(self._stamps, self._trimming.groups, strict=True))
        budget, count_tokens = key[1] or sys.maxsize, key[2]
        self._key, self._stamps = key, []
        self._head = system_prompt.to_messages(self.summary_mode)
        trimming = self._trimming = Trimming(_cost(self._head, count_tokens), budget, count_tokens)
        self._last_task = max(
            (i for i, step in enumerate(steps) if isinstance(step, TaskStep)), default=0
        )
        latest = len(steps) - PROTECTED_LATEST_STEPS
        for index, step in enumerate(steps):
            trimming.add(reusable.pop(step.stamp, None) or self._group(step))
            self._stamps.append(step.stamp)
            if index != self._last_task and index < latest:
                trimming.unprotect(index)
        trimming.advance()

    def _append(self, steps: list[MemoryStep], known: int) -> None:
        trimming = self._trimming
        for index in range(known, len(steps)):
            trimming.add(self._group(steps[index]))
            self._stamps.append(steps[index].stamp)
            older = index - PROTECTED_LATEST_STEPS
            if older >= 0 and older != self._last_task:
                trimming.unprotect(older)
        trimming.advance()

    def _group(self, step: MemoryStep) -> StepMessages:
        mark_in_prompt(step)
        return StepMessages(step.to_messages(self.summary_mode), is_task=isinstance(step, TaskStep))


def _cost(messages: list[ChatMessage], count_tokens: Callable[[str], int]) -> int:
    return sum(_message_tokens(m, count_tokens) for m in messages)


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
