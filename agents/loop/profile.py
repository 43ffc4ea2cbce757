"""The seam between the loop and a model family's special needs: `ModelProfile`.

The loop calls a profile at fixed points and nowhere else: the prompt templates and the
transcript a code step sees, the decoding options of each model call (a grammar, a token cap),
proposing a code step's action (one model call, or drafts and a vote), repairing the code
before it runs, and the answer of a run whose steps ran out. `GenericProfile` does exactly what
the loop does for any model; a model family that needs more (the tiny bundled model:
`agents.small_model`) plugs in its own. The choice is made once, when an agent is built
(`choose_profile`); after that the loop sees only the protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Generator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from agents.executors.base import CodeOutput
from agents.loop.last_answer import answer_after_steps
from agents.loop.repair import Repair, repair_code
from agents.memory.steps import MemoryStep
from agents.models.messages import ChatMessage, TokenUsage

# A model call as the loop makes it: the call's options in, stream events out, the message back.
Write = Callable[[dict[str, Any]], Generator[Any, None, ChatMessage]]


@dataclass
class Proposal:
    """The action a code step takes: the model output chosen, and what came with the choice.

    Args:
        message: The model output the step records and runs.
        tried: The code as already tried, repairs included (None: the loop extracts the code
            from `message` and repairs it).
        note: A line for the step's observations about how it was chosen ("" for none).
        token_usage: The tokens of every model call the choice took.
    """

    message: ChatMessage
    tried: Repair | None = None
    note: str = ""
    token_usage: TokenUsage | None = None


@dataclass
class DraftTrial:
    """What a profile may use to try a code step's drafts before one is chosen.

    Args:
        model: The agent's model.
        extract: The code in a model output's text (raises `AgentParsingError` when none).
        repair: The step's repairs (the profile's own `repair`, with the agent's task and tools).
        run: Runs code in the agent's executor; raises `AgentExecutionError` on an error.
        known_text: The task and the run's observations so far.
        state_lost: Called when trying a draft cost the executor its variables.
    """

    model: Any
    extract: Callable[[str], str]
    repair: Callable[[str], Repair]
    run: Callable[[str], CodeOutput]
    known_text: str
    state_lost: Callable[[], None]


class ModelProfile(Protocol):
    """The fixed points at which an agent's loop asks its model's profile.

    `CodeAgent` calls all but the `tool_` methods; `ToolCallingAgent` calls those and
    `last_answer`.
    """

    def prompt_file(self, default: str) -> str:
        """The packaged prompt templates a code agent uses, given its own (`default`)."""
        ...

    def max_steps(self, asked: int) -> int:
        """The steps per run of a code agent that was asked for `asked`."""
        ...

    def messages(
        self,
        system_prompt: str,
        steps: Sequence[MemoryStep],
        code_block_tags: tuple[str, str],
        generic: Callable[[], list[ChatMessage]],
        tools: Collection[str],
    ) -> list[ChatMessage]:
        """What the model sees for a code step; `generic()` gives the loop's own transcript,
        `tools` names what the code may call."""
        ...

    def step_options(
        self, model: Any, code_block_tags: tuple[str, str], retry: bool
    ) -> dict[str, Any]:
        """Decoding options of a code step's model call (retry: an earlier step came first)."""
        ...

    def call_options(self, code_block_tags: tuple[str, str]) -> dict[str, Any]:
        """Default options of a code agent's other model calls (planning, the last answer)."""
        ...

    def propose(
        self, write: Write, options: dict[str, Any], trial: DraftTrial | None
    ) -> Generator[Any, None, Proposal]:
        """Call the model for a code step and choose its action (trial None: no drafts may
        be tried, so one call)."""
        ...

    def repair(self, code: str, task: str | None, tool_names: Iterable[str]) -> Repair:
        """Fix a code step's obvious slips before it runs."""
        ...

    def tool_step_options(self, model: Any, tool_schemas: Sequence[dict[str, Any]]) -> dict:
        """Decoding options of a tool-calling step's model call."""
        ...

    def tool_call_options(self) -> dict[str, Any]:
        """Default options of a tool-calling agent's other model calls."""
        ...

    def last_answer(self, text: str, steps: Sequence[MemoryStep]) -> Any:
        """The answer of a run whose steps ran out, from the model's last reply."""
        ...


class GenericProfile:
    """The loop's behaviour for any model: no option added, one call per step, the generic
    syntax repair (`agents.loop.repair`) and last answer (`agents.loop.last_answer`)."""

    def prompt_file(self, default: str) -> str:
        return default

    def max_steps(self, asked: int) -> int:
        return asked

    def messages(
        self,
        system_prompt: str,
        steps: Sequence[MemoryStep],
        code_block_tags: tuple[str, str],
        generic: Callable[[], list[ChatMessage]],
        tools: Collection[str] = (),
    ) -> list[ChatMessage]:
        return generic()

    def step_options(
        self, model: Any, code_block_tags: tuple[str, str], retry: bool
    ) -> dict[str, Any]:
        return {}

    def call_options(self, code_block_tags: tuple[str, str]) -> dict[str, Any]:
        return {}

    def propose(
        self, write: Write, options: dict[str, Any], trial: DraftTrial | None
    ) -> Generator[Any, None, Proposal]:
        return (yield from single_call(write, options))

    def repair(self, code: str, task: str | None, tool_names: Iterable[str]) -> Repair:
        return repair_code(code)

    def tool_step_options(self, model: Any, tool_schemas: Sequence[dict[str, Any]]) -> dict:
        return {}

    def tool_call_options(self) -> dict[str, Any]:
        return {}

    def last_answer(self, text: str, steps: Sequence[MemoryStep]) -> Any:
        return answer_after_steps(text, steps)


GENERIC = GenericProfile()


def single_call(write: Write, options: dict[str, Any]) -> Generator[Any, None, Proposal]:
    """One model call, streamed, as the step's action.

    Args:
        write: The loop's model call.
        options: The call's options.
    """
    message = yield from write(options)
    return Proposal(message, token_usage=message.token_usage)


def choose_profile(model: Any, choice: bool | ModelProfile | None) -> ModelProfile:
    """The profile an agent uses, chosen once when it is built.

    Args:
        model: The agent's model.
        choice: A profile to use; or, for the small-model profile (the agent's `small_model`
            argument), True or False to force it on or off and None to choose it by model.
    """
    if choice is not None and not isinstance(choice, bool):
        return choice
    # The one place the loop names a model family: the bundled tiny model's profile decides
    # whether it applies (imported here, when an agent is built, so the loop does not
    # depend on it otherwise).
    from agents.small_model.profile import select_profile

    return select_profile(model, choice) or GENERIC
