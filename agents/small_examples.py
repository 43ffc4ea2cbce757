"""Worked examples for a small model, picked per task.

A 135M model does not follow instructions so much as continue a pattern: shown a worked
example close to the task ("Convert 7 meters to centimeters" -> `final_answer(7 * 100)`), it
writes the analogous code. The bank (`agents/prompts/examples/small_code.yaml`) covers the
simple tasks a first-time visitor tries; `pick_examples` chooses the few that share the most
(rare) words with the task, the closest one last, next to the task itself.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _same(words: str, name: str) -> dict[str, str]:
    """Map each of the space-separated `words` to `name`."""
    return dict.fromkeys(words.split(), name)


_WORD = re.compile(r"[a-z]+")
# Words that say nothing about what kind of task it is.
_STOPWORDS = _word_set(
    "a an the is are was were of in on to and or what how which who does do did be it its "
    "this that there with for from by as at into than then use python me please answer "
    "yes no"
)
# Words that name the same kind of task.
_SYNONYMS = {
    **_same(
        "january february march april may june july august september october "
        "november december month",
        "month",
    ),
    **_same("largest biggest greatest highest maximum max", "max"),
    **_same("smallest lowest least minimum min", "min"),
    **_same("character long length", "length"),
    **_same("weekday week", "week"),
    **_same("multiply multiplied product", "multiply"),
    **_same("plus add added", "plus"),
    **_same("minus subtract subtracted difference", "minus"),
    **_same("divide divided quotient", "divide"),
}
# Operators written between spaces, as words.
_OPERATORS = {"*": "multiply", "+": "plus", "-": "minus", "/": "divide", "**": "power"}
_OPERATOR = re.compile(r"(?<=\s)(\*\*|[*+/-])(?=\s)")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\[[^\]]*\]")
_FILE_TASK = re.compile(r"\battached\b|\bfile\b|\.txt\b|\bpath\b", re.IGNORECASE)
EXAMPLES_FILE = "examples/small_code.yaml"


@dataclass(frozen=True)
class WorkedExample:
    """One solved task in the step format.

    Args:
        task: The task as the user would type it.
        thought: The one-line thought.
        code: The code, whose last line gives the answer.
    """

    task: str
    thought: str
    code: str

    def answer(self, open_tag: str, close_tag: str) -> str:
        """The example's step as the model should write it.

        Args:
            open_tag: The code block's opening marker.
            close_tag: The code block's closing marker.
        """
        return f"Thought: {self.thought}\n{open_tag}\n{self.code.strip()}\n{close_tag}"


@cache
def example_bank() -> tuple[WorkedExample, ...]:
    """The packaged worked examples (read once)."""
    import yaml

    text = resources.files("agents.prompts").joinpath(EXAMPLES_FILE).read_text("utf-8")
    return tuple(WorkedExample(**entry) for entry in yaml.safe_load(text)["examples"])


def pick_examples(
    task: str, count: int = 3, bank: tuple[WorkedExample, ...] | None = None
) -> list[WorkedExample]:
    """The `count` examples most like `task`, least alike first.

    Similarity is the summed rarity (inverse document frequency over the bank) of the words
    the task and an example share, quoted text left out; ties keep the bank's order. Examples
    about an attached file are offered only for a task that mentions one.

    Args:
        task: The user's task.
        count: How many examples to return.
        bank: The examples to choose from (default: the packaged bank).
    """
    bank = example_bank() if bank is None else bank
    if not _FILE_TASK.search(task):
        bank = tuple(example for example in bank if not _FILE_TASK.search(example.task))
    if count <= 0 or not bank:
        return []
    words = [_words(example.task) for example in bank]
    frequency = Counter(word for example_words in words for word in example_words)
    weight = {word: math.log(1 + len(bank) / n) for word, n in frequency.items()}
    wanted = _words(task)
    scores = [sum(weight[w] for w in wanted & example_words) for example_words in words]
    ranked = sorted(range(len(bank)), key=lambda i: (-scores[i], i))[:count]
    return [bank[i] for i in reversed(ranked)]


def _words(text: str) -> set[str]:
    """The words of `text` that can tell tasks apart: not quoted data, lower case, crudely
    singular, synonyms merged."""
    found = set()
    text = _QUOTED.sub(" ", text).replace("%", " percent ")
    text = _OPERATOR.sub(lambda match: _OPERATORS[match.group(1)], text)
    for word in _WORD.findall(text.lower()):
        if word in _STOPWORDS or len(word) < 2:
            continue
        word = word[:-1] if len(word) > 3 and word.endswith("s") else word
        found.add(_SYNONYMS.get(word, word))
    return found
