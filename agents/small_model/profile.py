"""The small-model profile: what makes a tiny local model (SmolLM2-135M) a usable CodeAgent
(and gives a ToolCallingAgent on it well-formed tool calls), behind the loop's `ModelProfile`.

A model this small copies a format well but cannot follow a long prompt. The profile gives it a
short system prompt with worked examples, caps each step's answer at a few lines, forces the
"Thought: / code block" format with a grammar where the backend can enforce one, repairs its
usual slips and turns a bare last expression into `final_answer(...)`
(`agents.small_model.repair`), and on llama.cpp has a CodeAgent step drafted a few times and
voted on (`agents.small_model.vote`). `select_profile` chooses it for the tiny models.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Generator, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agents.loop.last_answer import answer_after_steps
from agents.loop.profile import DraftTrial, Proposal, Write, single_call
from agents.loop.repair import Repair
from agents.memory.steps import MemoryStep
from agents.models.base import Model
from agents.models.messages import ChatMessage
from agents.prompts.code_tags import code_stop_sequences
from agents.small_model.grammar import tool_call_schema
from agents.small_model.repair import small_repair
from agents.small_model.transcript import small_transcript
from agents.small_model.vote import DraftJudge, quietly, vote

# Model ids of the models the profile is chosen for automatically: the bundled SmolLM2-135M
# (GGUF file name, hub id, ollama tag) and its 360M sibling.
SMALL_MODEL_IDS = re.compile(r"smollm2?[-_:/ ]?(135|360)m", re.IGNORECASE)


@dataclass(frozen=True)
class SmallModelProfile:
    """How a CodeAgent talks to a small model.

    Args:
        templates: The packaged prompt templates to use instead of the full ones.
        max_tokens: Cap on the tokens of one step's answer: one thought and a few lines of code.
        max_code_lines: Most lines of code the grammar allows in one step.
        max_line_chars: Most characters in the thought and in each line of code.
        temperature: Sampling temperature of a first step (0: greedy; a tiny model's samples
            wander).
        retry_temperature: Temperature of the later steps: greedy decoding tends to repeat the
            same mistake, and a high temperature makes a tiny model wander off the task.
        examples: Worked examples shown before each task, picked for it.
        earlier_turns: Earlier chat turns kept in the transcript (task and answering step).
        run_steps: Most steps per run: a first try and one fix. A tiny model whose fix failed
            too repeats itself (bench/small_model.py), so more steps only cost time.
        tool_call_tokens: Cap on the tokens of one ToolCallingAgent step (one JSON call).
        max_argument_chars: Most characters in a string argument of a tool call, so that the
            call closes before the token cap (SmolLM2 spends a token per digit).
        drafts: Most drafts of one CodeAgent step, voted on (`agents.small_model.vote`); 1: none.
            Drafts are written only for a backend that follows a grammar (llama.cpp: an
            extra draft costs only its own tokens, and each gets a `seed` of its own).
        draft_temperature: Sampling temperature of the drafts after the first.
    """

    templates: str = "small_code_agent"
    max_tokens: int = 128
    max_code_lines: int = 5
    max_line_chars: int = 160
    temperature: float = 0.0
    retry_temperature: float = 0.3
    examples: int = 3
    earlier_turns: int = 2
    run_steps: int = 2
    tool_call_tokens: int = 192
    max_argument_chars: int = 100
    drafts: int = 3
    draft_temperature: float = 0.7

    def prompt_file(self, default: str) -> str:
        """The short templates, whatever the agent's own (`default`) are."""
        return self.templates

    def max_steps(self, asked: int) -> int:
        """The steps asked for, capped at `run_steps`.

        Args:
            asked: The agent's `max_steps`.
        """
        return min(asked, self.run_steps)

    def messages(
        self,
        system_prompt: str,
        steps: Sequence[MemoryStep],
        code_block_tags: tuple[str, str],
        generic: Callable[[], list[ChatMessage]],
        tools: Collection[str] = (),
    ) -> list[ChatMessage]:
        """The short transcript the model sees for its next step (see
        `agents.small_model.transcript`); the generic one is not used.

        Args:
            system_prompt: The agent's system prompt.
            steps: The agent's memory steps.
            code_block_tags: The (open, close) markers of the code block.
            generic: The loop's own transcript.
            tools: The names of the tools the code may call.
        """
        return small_transcript(
            system_prompt, steps, code_block_tags, self.examples, self.earlier_turns, tools
        )

    def grammar(self, code_block_tags: tuple[str, str]) -> str:
        """A GBNF grammar for one step: a one-line thought, then one short code block.

        The code is straight-line (no `def`: a tiny model defines functions and never calls
        them; no line opens a code fence) and its last line gives the answer or shows a value:
        `final_answer(...)` or `print(...)`.

        Args:
            code_block_tags: The (open, close) markers of the code block.
        """
        open_tag, close_tag = code_block_tags
        # No line may hold the closing tag (the stop sequence would cut the code short), so
        # a character is anything but a newline, or the tag's first character not followed
        # by its second. A line of code starts with neither tag's first character (a stray
        # code fence or tag) nor "def".
        first, second = _gbnf_char(close_tag[0]), _gbnf_char(close_tag[1:2] or "\n")
        start = "".join(sorted({first, _gbnf_char(open_tag[0]), _gbnf_char("`")}))
        n = self.max_line_chars
        return "\n".join(
            [
                f'root ::= "Thought: " char{{1,{n}}} "\\n" {_gbnf_literal(open_tag)} "\\n" code close',
                f"char ::= [^\\n{first}] | [{first}] [^\\n{second}]",
                f"code ::= line{{0,{self.max_code_lines - 1}}} last",
                f'line ::= ([^d\\n{start}] | "d" [^e\\n] | "de" [^f\\n]) char{{0,{n}}} "\\n"',
                f'last ::= ("final_answer(" | "print(") char{{1,{n}}} "\\n"',
                f"close ::= {_gbnf_literal(close_tag)}",
            ]
        )

    def step_options(
        self, model: Any, code_block_tags: tuple[str, str], retry: bool = False
    ) -> dict[str, Any]:
        """Options of the model call of one action step: a token cap, a temperature, and the
        grammar where the backend says it follows one.

        Args:
            model: The agent's model.
            code_block_tags: The (open, close) markers of the code block.
            retry: Whether an earlier step of this run came before (usually a failed one).
        """
        temperature = self.retry_temperature if retry else self.temperature
        options: dict[str, Any] = {"max_tokens": self.max_tokens, "temperature": temperature}
        if isinstance(model, Model) and model.supports_grammar:
            options["grammar"] = self.grammar(code_block_tags)
        return options

    def call_options(self, code_block_tags: tuple[str, str]) -> dict[str, Any]:
        """Planning and the last answer get the steps' token cap, and the last answer (which
        the model writes like a step) ends where a step would.

        Args:
            code_block_tags: The (open, close) markers of the code block.
        """
        return {
            "max_tokens": self.max_tokens,
            "stop_sequences": code_stop_sequences(code_block_tags),
        }

    def propose(
        self, write: Write, options: dict[str, Any], trial: DraftTrial | None
    ) -> Generator[Any, None, Proposal]:
        """Drafts of the step, each tried apart, and the one the vote chooses
        (`agents.small_model.vote`); one plain call where drafts cannot be tried or the
        backend follows no grammar. Only the first draft streams.

        Args:
            write: The loop's model call.
            options: The step's call options.
            trial: What trying a draft takes (None: no drafts).
        """
        count = 1 if trial is None else self.drafts_for(trial.model)
        if trial is None or count <= 1:
            return (yield from single_call(write, options))
        judge = DraftJudge(
            trial.extract, trial.repair, trial.run, trial.known_text, trial.state_lost
        )

        def draft(index: int) -> Generator[Any, None, ChatMessage]:
            calls = write(self.draft_options(options, index))
            if index == 0:
                return (yield from calls)
            return (yield from quietly(calls))

        ballot = yield from vote(draft, judge, count)
        chosen = ballot.chosen
        return Proposal(chosen.message, chosen.repair, ballot.note, ballot.token_usage)

    def drafts_for(self, model: Any) -> int:
        """How many drafts a CodeAgent step on `model` may write (1: no vote).

        Args:
            model: The agent's model.
        """
        return self.drafts if isinstance(model, Model) and model.supports_grammar else 1

    def draft_options(self, step_options: dict[str, Any], index: int) -> dict[str, Any]:
        """The model call options of draft number `index` (0: the step's own call).

        Args:
            step_options: The step's model call options.
            index: The draft's number, from 0.
        """
        if index == 0:
            return step_options
        # llama.cpp seeds every call alike unless told otherwise: same prompt, same sample.
        return {**step_options, "temperature": self.draft_temperature, "seed": index}

    def repair(self, code: str, task: str | None, tool_names: Iterable[str]) -> Repair:
        """The generic syntax fix and the small model's own (`agents.small_model.repair`).

        Args:
            code: The code the model wrote.
            task: The task, to tell whether it asks for a value.
            tool_names: The agent's tools and managed agents.
        """
        return small_repair(code, task, tool_names)

    def tool_step_options(self, model: Any, tool_schemas: Sequence[dict[str, Any]]) -> dict:
        """Options of the model call of one ToolCallingAgent step: a token cap and, where the
        backend follows a grammar, one JSON call of one of the tools with the arguments it
        takes (see `agents.small_model.grammar`).

        Args:
            model: The agent's model.
            tool_schemas: The function schemas of the tools the model may call.
        """
        options: dict[str, Any] = {"max_tokens": self.tool_call_tokens}
        if isinstance(model, Model) and model.supports_grammar and tool_schemas:
            options["grammar"] = tool_call_schema(tool_schemas, self.max_argument_chars)
        return options

    def tool_call_options(self) -> dict[str, Any]:
        """Planning and the last answer of a ToolCallingAgent get its steps' token cap:
        unconstrained, a tiny model rambles to the backend's cap (minutes on 2 cores)."""
        return {"max_tokens": self.tool_call_tokens}

    def last_answer(self, text: str, steps: Sequence[MemoryStep]) -> Any:
        """The generic last answer (`agents.loop.last_answer`): a reply written like a step
        is never taken for the answer.

        Args:
            text: The model's last reply.
            steps: The agent's memory steps.
        """
        return answer_after_steps(text, steps)


def is_small_model(model: Any) -> bool:
    """Whether `model` is one of the tiny models the profile is chosen for automatically.

    Args:
        model: The agent's model.
    """
    return isinstance(model, Model) and bool(SMALL_MODEL_IDS.search(str(model.model_id or "")))


def is_small_model_id(model_id: str | None) -> bool:
    """Whether a model id or label names one of the tiny models (e.g. for the UI).

    Args:
        model_id: A model id, GGUF file name or display label.
    """
    return bool(SMALL_MODEL_IDS.search(model_id or ""))


def select_profile(model: Any, small_model: bool | None) -> SmallModelProfile | None:
    """The small-model profile, or None for the generic path: forced on or off by
    `small_model`, else chosen by model (`agents.loop.profile.choose_profile` asks this once,
    when an agent is built).

    Args:
        model: The agent's model.
        small_model: True or False to force the choice; None to choose automatically.
    """
    if small_model is None:
        small_model = is_small_model(model)
    return SmallModelProfile() if small_model else None


def _gbnf_literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _gbnf_char(char: str) -> str:
    """A character for a GBNF character class, as a hex escape unless it is alphanumeric."""
    return char if char.isalnum() else f"\\x{ord(char):02x}"
