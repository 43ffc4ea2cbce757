"""Worked examples for a small model, picked per task by the operation it asks for.

A 135M model does not follow instructions so much as continue a pattern: shown a worked
example of the same operation ("Turn 6 yards into feet" -> `final_answer(6 * 3)`), it writes
the analogous code for its own values. The bank (`agents/prompts/examples/small_code.yaml`)
groups a few canonical examples by operation (arithmetic, powers, percentages, counting
characters, changing text, date differences, unit conversions, a loop over a sequence or a
range, reading a file ...), each category with the keywords that name it. `pick_examples`
ranks the categories by the keywords a task uses (quoted data left out) and shows the best
category's examples, the closest one (by shared rare words) last, next to the task itself.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection
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
    **_same("hyphen dash slash comma separator separated", "separator"),
    **_same("after later", "after"),
    **_same("before earlier ago", "before"),
}
# Operators written between spaces, as words.
_OPERATORS = {"*": "multiply", "+": "plus", "-": "minus", "/": "divide", "**": "power"}
_OPERATOR = re.compile(r"(?<=\s)(\*\*|[*+/-])(?=\s)")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\[[^\]]*\]")
_QUOTED_TEXT = re.compile(r"'[^']*'|\"[^\"]*\"")
_FILE_TASK = re.compile(r"\battached\b|\bfile\b|\.txt\b|\bpath\b", re.IGNORECASE)
EXAMPLES_FILE = "examples/small_code.yaml"
# Lines of the app's note about attached files (not the question): its first line, each
# file's path line and the file's first lines shown as "  > ...".
_ANNOUNCEMENT = re.compile(r"^the user attached|path: |^\s*> ", re.IGNORECASE)
# Similarity bonus of an example that quotes as many texts as the task (about two rare words).
_SAME_SHAPE = 4.0
# Operators between numbers, as the words category keywords use.
_OPERATOR_WORDS = tuple(
    (re.compile(pattern), f" {word} ")
    for pattern, word in [
        (r"(?<=[\d\s])(\*\*|\^)(?=[\s\d])", "power"),
        (r"(?<=[\d\s])[*×](?=[\s\d])", "times"),
        (r"(?<=[\d\s])\+(?=[\s\d])", "plus"),
        (r"(?<=\d )-(?= \d)", "minus"),
        (r"(?<=[\d\s])/(?=[\s\d])", "divide"),
        (r"%", "percent"),
    ]
)


@dataclass(frozen=True)
class WorkedExample:
    """One solved task in the step format.

    Args:
        task: The task as the user would type it.
        thought: The one-line thought.
        code: The code, whose last line gives the answer.
        category: The name of the operation it teaches (see `Category`).
        tool: The tool its code calls ("" for none): shown only to agents that have it.
    """

    task: str
    thought: str
    code: str
    category: str = ""
    tool: str = ""

    def answer(self, open_tag: str, close_tag: str) -> str:
        """The example's step as the model should write it.

        Args:
            open_tag: The code block's opening marker.
            close_tag: The code block's closing marker.
        """
        return f"Thought: {self.thought}\n{open_tag}\n{self.code.strip()}\n{close_tag}"


@dataclass(frozen=True)
class Category:
    """A kind of operation, and the keywords by which a task asks for it.

    Args:
        name: The category's name (the `category` of its examples).
        keywords: Regular expressions, each matched at a word start in the lower-cased task
            with quoted text left out and operators written as words.
        unless: A regular expression that, found in the task, rules the category out.
        file: Whether it is about an attached file (offered only for such tasks).
        text: Whether it works on quoted text (a task that quotes text favours it).
    """

    name: str
    keywords: tuple[str, ...]
    unless: str = ""
    file: bool = False
    text: bool = False

    def score(self, task: str, quotes: bool) -> int:
        """How strongly a task asks for this operation: the keywords it uses (0: not at all).

        Args:
            task: The task, lower case, quoted text left out, operators as words.
            quotes: Whether the task quotes some text.
        """
        if self.unless and re.search(self.unless, task):
            return 0
        hits = sum(bool(re.search(rf"\b{keyword}", task)) for keyword in self.keywords)
        return hits + int(bool(hits) and self.text and quotes)


@cache
def example_bank() -> tuple[WorkedExample, ...]:
    """The packaged worked examples (read once), each with its category's name."""
    return tuple(
        WorkedExample(**entry, category=category["name"])
        for category in _bank_data()["categories"]
        for entry in category["examples"]
    )


@cache
def example_categories() -> tuple[Category, ...]:
    """The packaged categories of examples (read once)."""
    return tuple(
        Category(
            name=entry["name"],
            keywords=tuple(entry["keywords"]),
            unless=entry.get("unless", ""),
            file=entry.get("file", False),
            text=entry.get("text", False),
        )
        for entry in _bank_data()["categories"]
    )


@cache
def _bank_data() -> dict:
    import yaml

    text = resources.files("agents.prompts").joinpath(EXAMPLES_FILE).read_text("utf-8")
    return yaml.safe_load(text)


def pick_examples(
    task: str,
    count: int = 3,
    bank: tuple[WorkedExample, ...] | None = None,
    categories: tuple[Category, ...] | None = None,
    tools: Collection[str] = (),
) -> list[WorkedExample]:
    """The `count` examples best suited to `task`, the best one last.

    Examples rank first by how strongly the task asks for their category's operation (see
    `Category.score`), then examples that call one of the agent's tools before those that
    do the work themselves, then by the summed rarity (inverse document frequency over the
    bank) of the words the task and the example share, quoted text left out; ties keep the
    bank's order. A task about an attached file gets only file examples; other tasks get
    none. An example calling a tool the agent lacks is never shown.

    Args:
        task: The user's task.
        count: How many examples to return.
        bank: The examples to choose from (default: the packaged bank).
        categories: The categories of the bank's examples (default: the packaged ones).
        tools: The names of the agent's tools.
    """
    bank = example_bank() if bank is None else bank
    bank = tuple(example for example in bank if not example.tool or example.tool in tools)
    categories = example_categories() if categories is None else categories
    is_file = {category.name: category.file for category in categories}
    about_file = bool(_FILE_TASK.search(task))
    bank = tuple(
        example
        for example in bank
        if is_file.get(example.category, bool(_FILE_TASK.search(example.task))) == about_file
    )
    if count <= 0 or not bank:
        return []
    plain = operation_text(task)
    quotes = bool(_QUOTED_TEXT.search(task))
    strength = {category.name: category.score(plain, quotes) for category in categories}
    similarity = _similarity(task, bank)
    ranked = sorted(
        range(len(bank)),
        key=lambda i: (-strength.get(bank[i].category, 0), not bank[i].tool, -similarity[i], i),
    )[:count]
    return [bank[i] for i in reversed(ranked)]


def _similarity(task: str, bank: tuple[WorkedExample, ...]) -> list[float]:
    """Per example, the summed rarity of the words it shares with `task`, plus a bonus when
    it quotes as many texts (the data's shape: "count 'a' in 'banana'" quotes two)."""
    words = [_words(example.task) for example in bank]
    frequency = Counter(word for example_words in words for word in example_words)
    weight = {word: math.log(1 + len(bank) / n) for word, n in frequency.items()}
    wanted = _words(task)
    quotes = len(_QUOTED_TEXT.findall(task))
    return [
        sum(weight[w] for w in wanted & example_words)
        + (_SAME_SHAPE if quotes and len(_QUOTED_TEXT.findall(example.task)) == quotes else 0)
        for example, example_words in zip(bank, words, strict=True)
    ]


def operation_text(task: str) -> str:
    """The task as category keywords see it: lower case, quoted data left out, the app's
    note about attached files left out, operators written as words.

    Args:
        task: The user's task.
    """
    text = _QUOTED.sub(" ", task).lower()
    text = "\n".join(line for line in text.splitlines() if not _ANNOUNCEMENT.search(line))
    for pattern, word in _OPERATOR_WORDS:
        text = pattern.sub(word, text)
    return text


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
