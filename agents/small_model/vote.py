"""Self-consistency for a small model: several drafts of a step, and the answer most agree on.

A 135M model's first (greedy) draft of a step is often nearly right, and when it is wrong its
samples are wrong in different ways. So a step gets up to `count` drafts: the first as the
step would ask for it, the others sampled; llama.cpp reuses the prompt it has just read, so a
draft costs only its own few dozen tokens. Each draft's code is repaired (`agents.loop.repair`)
and tried in the executor inside a function of its own, so that no draft's variables are
left for the next one to use. Drafts stop as soon as two agree on a final answer.

A draft whose code fails (or guesses) but whose thought spells out an expression that
computes the answer (`agents.small_model.thought`) is tried again with that expression as its
code, recorded as a repair. The step then runs the chosen draft's code as usual: the first
draft of the answer most drafts agree on; failing that, the first draft that ran and printed
something (a look at a file), else the first draft. A final answer that is a number
written out in the code rather than worked out (`final_answer(1040)` for a product the model
did in its head) counts as a guess, not an answer: only a number the task or an earlier
observation shows may be answered as a literal, and not one written as an ordinal (the
"20" of "the 20th Fibonacci number" names a position, not the value asked for). What the
drafts gave is told in a note in the step's observations.
The chosen draft's code then runs again as the step's own, so a tool it calls runs once per
draft tried and once more: `SmallModelProfile(drafts=1)` where tools have side effects.
"""

from __future__ import annotations

import ast
import math
import re
import textwrap
from collections import Counter
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass
from typing import Any

from agents.errors import AgentExecutionError, AgentParsingError
from agents.executors.base import CodeOutput
from agents.loop.repair import Repair
from agents.models.messages import ChatMessage, TokenUsage
from agents.small_model.thought import thought_expression
from agents.small_model.transcript import ERROR_PREFIX

# The outcome of trying a draft.
ANSWER, PRINTED, GUESS, FAILED, NO_CODE = "answer", "printed", "guess", "failed", "no code"
VOTE_NOTE_START = "Note: drafts of this step: "
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")
# A number written as an ordinal: "20th", "1st", "22nd", "3rd".
_ORDINAL = re.compile(r"(?<![\w.])\d+(?:st|nd|rd|th)\b", re.IGNORECASE)
_DRAFT_FUNCTION = "__smolui_draft__"
_MAX_SHOWN_CHARS = 40
_FROM_THOUGHT = "the code failed when tried, so the expression its thought spells out runs instead"
_ERROR_HEADER = re.compile(r" \(line \d+\)")


@dataclass
class Draft:
    """One draft of a step and what trying it gave.

    Args:
        message: The model's answer.
        outcome: `ANSWER` (a final answer worked out by the code), `PRINTED` (it ran and
            gave no final answer), `GUESS` (a final answer that is a bare number not
            found in the task), `FAILED` (an error) or `NO_CODE`.
        answer: The final answer, for `ANSWER` and `GUESS`.
        detail: For `FAILED`, the error's first line.
        repair: The code the step runs if it chooses this draft, with its repairs (None
            for `NO_CODE`).
    """

    message: ChatMessage
    outcome: str
    answer: Any = None
    detail: str = ""
    repair: Repair | None = None

    @property
    def key(self) -> str | None:
        """What drafts must share to agree (None: the draft has no answer to vote for)."""
        return answer_key(self.answer) if self.outcome == ANSWER else None


@dataclass
class Ballot:
    """The drafts of a step and the one chosen.

    Args:
        chosen: The draft the step runs.
        drafts: All drafts, in the order they were written.
    """

    chosen: Draft
    drafts: list[Draft]

    @property
    def token_usage(self) -> TokenUsage | None:
        """The tokens of all drafts (None when no draft reported any)."""
        usages = [draft.message.token_usage for draft in self.drafts]
        if all(usage is None for usage in usages):
            return None
        return sum((usage for usage in usages if usage is not None), TokenUsage())

    @property
    def note(self) -> str:
        """One line for the step's observations ("" for a single draft)."""
        if len(self.drafts) < 2:
            return ""
        counts = Counter(_described(draft) for draft in self.drafts)
        parts = [f"{n} {what}" for what, n in counts.items()]
        index = next(i for i, draft in enumerate(self.drafts, 1) if draft is self.chosen)
        return (
            f"{VOTE_NOTE_START}{len(self.drafts)} written ({'; '.join(parts)}); draft {index} runs."
        )


def vote(
    write: Callable[[int], Generator[Any, None, ChatMessage]],
    judge: Callable[[ChatMessage], Draft],
    count: int,
) -> Generator[Any, None, Ballot]:
    """Write and judge up to `count` drafts (fewer once two agree); return the ballot.

    Args:
        write: Writes draft number i (0 first); a generator that may yield stream events.
        judge: Tries a draft (see `DraftJudge`).
        count: Most drafts.
    """
    drafts: list[Draft] = []
    for index in range(max(count, 1)):
        message = yield from write(index)
        drafts.append(judge(message))
        if _agreed(drafts):
            break
    return Ballot(choose(drafts), drafts)


def choose(drafts: list[Draft]) -> Draft:
    """The draft a step runs: the first of the answer most drafts agree on (ties: the answer
    given first), else the first that ran without a final answer, else the first.

    Args:
        drafts: At least one draft, in the order written.
    """
    votes = Counter(draft.key for draft in drafts if draft.key is not None)
    if votes:
        first = {}
        for index, draft in enumerate(drafts):
            if draft.key is not None:
                first.setdefault(draft.key, index)
        best = max(votes, key=lambda key: (votes[key], -first[key]))
        return drafts[first[best]]
    return next((draft for draft in drafts if draft.outcome == PRINTED), drafts[0])


def _agreed(drafts: list[Draft]) -> bool:
    votes = Counter(draft.key for draft in drafts if draft.key is not None)
    return bool(votes) and max(votes.values()) >= 2


class DraftJudge:
    """Tries drafts of a step in the agent's executor without keeping what they bind.

    Args:
        extract: The code in a model answer's text ("" when there is none).
        repair: The step's repairs (`agents.loop.repair.repair_code` with the agent's settings).
        run: Runs code in the agent's executor; raises `AgentExecutionError` on an error.
        known_text: The task and the run's observations so far: the numbers in it may be
            answered as written (ordinals excepted, see `answerable_numbers`).
        state_lost: Called when trying a draft cost the executor its variables (its
            worker was replaced), as running the code would have.
    """

    def __init__(
        self,
        extract: Callable[[str], str],
        repair: Callable[[str], Repair],
        run: Callable[[str], CodeOutput],
        known_text: str,
        state_lost: Callable[[], None] = lambda: None,
    ):
        self.extract = extract
        self.repair = repair
        self.run = run
        self.known_numbers = answerable_numbers(known_text)
        self.state_lost = state_lost

    def __call__(self, message: ChatMessage) -> Draft:
        text = message.text or ""
        try:
            code = self.extract(text)
        except AgentParsingError:
            draft = Draft(message, NO_CODE)
        else:
            draft = self.attempt(message, self.repair(code))
        if draft.outcome in (ANSWER, PRINTED):
            return draft
        expression = thought_expression(text)
        if expression is None:
            return draft
        repair = self.repair(f"final_answer({expression})")
        repair.notes.insert(0, _FROM_THOUGHT)
        from_thought = self.attempt(message, repair)
        scalar = isinstance(from_thought.answer, (int, float, str))
        return from_thought if from_thought.outcome == ANSWER and scalar else draft

    def attempt(self, message: ChatMessage, repair: Repair) -> Draft:
        """Try one draft's repaired code apart from the agent's variables.

        Args:
            message: The model's answer.
            repair: Its code after repair.
        """
        try:
            result = self.run(isolated(repair.code))
        except AgentExecutionError as error:
            if error.state_lost:
                self.state_lost()
            return Draft(message, FAILED, detail=_error_line(str(error.message)), repair=repair)
        if not result.is_final_answer:
            return Draft(message, PRINTED, repair=repair)
        if is_guess(repair.code, self.known_numbers):
            return Draft(message, GUESS, result.output, repair=repair)
        return Draft(message, ANSWER, result.output, repair=repair)


def quietly(calls: Generator[Any, None, ChatMessage]) -> Generator[Any, None, ChatMessage]:
    """Run a model call to its end without passing its stream on; return its message.

    Args:
        calls: A model call that yields stream events and returns the message.
    """
    while True:
        try:
            next(calls)
        except StopIteration as stop:
            return stop.value
    yield  # a generator, so that `yield from quietly(...)` reads like the streamed call


def isolated(code: str) -> str:
    """`code` as the body of a function that is called once and deleted: the names it binds
    stay local to the call, so a draft leaves no variables behind (objects it changes in
    place stay changed).

    Args:
        code: Code that parses (lines are indented as they are; a triple-quoted text that
            spans lines gets the indent too).
    """
    body = textwrap.indent(code, "    ", lambda line: True)
    return (
        f"def {_DRAFT_FUNCTION}():\n{body}\n    return None\n"
        f"try:\n    {_DRAFT_FUNCTION}()\nfinally:\n    del {_DRAFT_FUNCTION}\n"
    )


def is_guess(code: str, known_numbers: Iterable[float]) -> bool:
    """Whether the code's final answer is a number written out (`final_answer(1040)`, or
    `final_answer("1040")`) that is none of `known_numbers`: an answer worked out in the
    model's head, which a tiny model gets wrong more often than not.

    Args:
        code: Code that parses.
        known_numbers: Numbers the task or an earlier observation shows.
    """
    known = set(known_numbers)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "final_answer"
            and len(node.args) == 1
        ):
            continue
        value = _literal_number(node.args[0])
        if value is not None and not any(math.isclose(value, n, rel_tol=1e-9) for n in known):
            return True
    return False


def numbers_in(text: str) -> set[float]:
    """The numbers written in `text` (thousands separators allowed).

    Args:
        text: Any text.
    """
    return {float(found) for found in _NUMBER.findall(text.replace(",", ""))}


def answerable_numbers(text: str) -> set[float]:
    """The numbers of `text` that a final answer may give as written: all but ordinals, since
    a task that asks for "the 20th" term or "the 3rd" day asks for something at that
    position, and a tiny model answering the position itself is a guess.

    Args:
        text: The task and the observations so far.
    """
    return numbers_in(_ORDINAL.sub(" ", text))


def answer_key(value: Any) -> str:
    """A value as drafts must share it to agree: numbers equal as numbers (3 and 3.0 and
    "3"), texts without surrounding spaces.

    Args:
        value: A final answer.
    """
    if isinstance(value, str):
        text = value.strip()
        try:
            number = float(text)
        except ValueError:
            return f"text:{text}"
        return f"number:{number:.9g}" if math.isfinite(number) else f"text:{text}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"number:{float(value):.9g}" if math.isfinite(value) else f"text:{value}"
    return f"{type(value).__name__}:{value!r}"


def _literal_number(node: ast.expr) -> float | None:
    """The number a literal argument writes out: `12`, `-3.5`, `"12"`; None otherwise."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _literal_number(node.operand)
        if inner is None:
            return None
        return -inner if isinstance(node.op, ast.USub) else inner
    if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
        return None
    if isinstance(node.value, (int, float)):
        return float(node.value)
    if isinstance(node.value, str) and _NUMBER.fullmatch(node.value.strip()):
        return float(node.value.strip())
    return None


def _described(draft: Draft) -> str:
    if draft.outcome == ANSWER:
        return f"answered {_shown(draft.answer)}"
    if draft.outcome == GUESS:
        return f"guessed {_shown(draft.answer)} without working it out"
    if draft.outcome == FAILED:
        return f"failed ({draft.detail})" if draft.detail else "failed"
    if draft.outcome == PRINTED:
        return "ran without a final answer"
    return "wrote no code"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN_CHARS else text[: _MAX_SHOWN_CHARS - 3] + "..."


def _error_line(text: str) -> str:
    """An executor's error as a few words: "NameError: name 'x' is not defined"."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    line = _ERROR_HEADER.sub("", lines[0].removeprefix(ERROR_PREFIX))
    return _shown_text(line)


def _shown_text(text: str) -> str:
    return text if len(text) <= _MAX_SHOWN_CHARS * 2 else text[: _MAX_SHOWN_CHARS * 2 - 3] + "..."
