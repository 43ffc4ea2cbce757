"""The small-model profile: what makes a tiny local model (SmolLM2-135M) a usable CodeAgent
(and gives a ToolCallingAgent on it well-formed tool calls).

A model this small copies a format well but cannot follow a long prompt. The profile gives it a
short system prompt with worked examples, caps each step's answer at a few lines, forces the
"Thought: / code block" format with a grammar where the backend can enforce one, lets the
agent turn a bare last expression into `final_answer(...)` (see `agents.loop.repair`), and on
llama.cpp has a CodeAgent step drafted a few times and voted on (see `agents.small_model.vote`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents.memory.steps import MemoryStep
from agents.models.base import Model
from agents.models.messages import ChatMessage
from agents.small_model.grammar import tool_call_schema
from agents.small_model.transcript import small_transcript

# Model ids of the models the profile is chosen for automatically: the bundled SmolLM2-135M
# (GGUF file name, hub id, ollama tag) and its 360M sibling.
SMALL_MODEL_IDS = re.compile(r"smollm2?[-_:/ ]?(135|360)m", re.IGNORECASE)


@dataclass(frozen=True)
class SmallModelProfile:
    """How a CodeAgent talks to a small model.

    Args:
        prompt_file: The packaged prompt templates to use instead of the full ones.
        max_tokens: Cap on the tokens of one step's answer: one thought and a few lines of code.
        max_code_lines: Most lines of code the grammar allows in one step.
        max_line_chars: Most characters in the thought and in each line of code.
        temperature: Sampling temperature of a first step (0: greedy; a tiny model's samples
            wander).
        retry_temperature: Temperature of the later steps: greedy decoding tends to repeat the
            same mistake, and a high temperature makes a tiny model wander off the task.
        examples: Worked examples shown before each task, picked for it.
        earlier_turns: Earlier chat turns kept in the transcript (task and answering step).
        max_steps: Most steps per run: a first try and one fix. A tiny model whose fix failed
            too repeats itself (bench/small_model.py), so more steps only cost time.
        tool_call_tokens: Cap on the tokens of one ToolCallingAgent step (one JSON call).
        max_argument_chars: Most characters in a string argument of a tool call, so that the
            call closes before the token cap (SmolLM2 spends a token per digit).
        drafts: Most drafts of one CodeAgent step, voted on (`agents.small_model.vote`); 1: none.
            Drafts are written only for a backend that follows a grammar (llama.cpp: an
            extra draft costs only its own tokens, and each gets a `seed` of its own).
        draft_temperature: Sampling temperature of the drafts after the first.
    """

    prompt_file: str = "small_code_agent"
    max_tokens: int = 128
    max_code_lines: int = 5
    max_line_chars: int = 160
    temperature: float = 0.0
    retry_temperature: float = 0.3
    examples: int = 3
    earlier_turns: int = 2
    max_steps: int = 2
    tool_call_tokens: int = 192
    max_argument_chars: int = 100
    drafts: int = 3
    draft_temperature: float = 0.7

    def steps_per_run(self, max_steps: int | None) -> int:
        """The agent's `max_steps`, capped for the small model.

        Args:
            max_steps: The steps asked for (None: the agent's default).
        """
        return self.max_steps if max_steps is None else min(max_steps, self.max_steps)

    def messages(
        self,
        system_prompt: str,
        steps: Sequence[MemoryStep],
        code_block_tags: tuple[str, str],
    ) -> list[ChatMessage]:
        """The short transcript the model sees for its next step (see `agents.small_model.transcript`).

        Args:
            system_prompt: The agent's system prompt.
            steps: The agent's memory steps.
            code_block_tags: The (open, close) markers of the code block.
        """
        return small_transcript(
            system_prompt, steps, code_block_tags, self.examples, self.earlier_turns
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

    def step_kwargs(
        self, model: Any, code_block_tags: tuple[str, str], retry: bool = False
    ) -> dict[str, Any]:
        """Extra arguments for the model call of one action step.

        Args:
            model: The agent's model; a grammar is sent only when it says it supports one.
            code_block_tags: The (open, close) markers of the code block.
            retry: Whether an earlier step of this run came before (usually a failed one).
        """
        temperature = self.retry_temperature if retry else self.temperature
        kwargs: dict[str, Any] = {"max_tokens": self.max_tokens, "temperature": temperature}
        if isinstance(model, Model) and model.supports_grammar:
            kwargs["grammar"] = self.grammar(code_block_tags)
        return kwargs

    def drafts_for(self, model: Any) -> int:
        """How many drafts a CodeAgent step on `model` may write (1: no vote).

        Args:
            model: The agent's model.
        """
        return self.drafts if isinstance(model, Model) and model.supports_grammar else 1

    def draft_kwargs(self, step_kwargs: dict[str, Any], index: int) -> dict[str, Any]:
        """The model call arguments of draft number `index` (0: the step's own call).

        Args:
            step_kwargs: The step's model call arguments.
            index: The draft's number, from 0.
        """
        if index == 0:
            return step_kwargs
        # llama.cpp seeds every call alike unless told otherwise: same prompt, same sample.
        return {**step_kwargs, "temperature": self.draft_temperature, "seed": index}

    def tool_call_kwargs(
        self, model: Any, tool_schemas: Sequence[dict[str, Any]]
    ) -> dict[str, Any]:
        """Extra arguments for the model call of one ToolCallingAgent step.

        Where the backend follows a grammar, the answer can only be one JSON call of one of
        the tools with the arguments it takes (see `agents.small_model.grammar`).

        Args:
            model: The agent's model; a grammar is sent only when it says it supports one.
            tool_schemas: The function schemas of the tools the model may call.
        """
        kwargs: dict[str, Any] = {"max_tokens": self.tool_call_tokens}
        if isinstance(model, Model) and model.supports_grammar and tool_schemas:
            kwargs["grammar"] = tool_call_schema(tool_schemas, self.max_argument_chars)
        return kwargs


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


def select_profile(
    model: Any, small_model: bool | SmallModelProfile | None
) -> SmallModelProfile | None:
    """The profile an agent uses: forced on or off by `small_model`, else chosen by model.

    Args:
        model: The agent's model.
        small_model: True or False to force the choice; None to choose automatically; a
            `SmallModelProfile` to use that one.
    """
    if isinstance(small_model, SmallModelProfile):
        return small_model
    if small_model is None:
        small_model = is_small_model(model)
    return SmallModelProfile() if small_model else None


def _gbnf_literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _gbnf_char(char: str) -> str:
    """A character for a GBNF character class, as a hex escape unless it is alphanumeric."""
    return char if char.isalnum() else f"\\x{ord(char):02x}"
