"""A measure is not a target: the bench's task sets stay apart from the code and the examples.

The task sets are read from `bench/` as data (its files are parsed, never imported), so this
file holds no task of theirs. It checks that no production or test file quotes a bench task,
and that no worked example of the small model's bank shares a bench task's wording, by
spelling or by meaning: the same numbers for the same operation, or the same sentence once
synonyms, numbers and units are reduced to what they stand for.
"""

from __future__ import annotations

import ast
import difflib
import json
import re
from pathlib import Path

import pytest

from agents.small_model.examples import WorkedExample, example_bank

ROOT = Path(__file__).resolve().parents[2]
# Two task texts this alike (word shapes, or concepts) are the same task.
TWIN_RATIO = 0.8
_TEXT_KEYS = ("text", "task", "question", "prompt")


def _tasks_in_python(path: Path) -> list[str]:
    """Texts of `...Task(kind, text, ...)` calls (or `text=`) in a bench file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", ""))
        if not name.endswith("Task"):
            continue
        values = [kw.value for kw in node.keywords if kw.arg in _TEXT_KEYS]
        values += node.args[1:2]
        found += [
            v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        ]
    return found


def _tasks_in_data(path: Path) -> list[str]:
    """Texts of the task records in a JSON, JSON lines or YAML bench file."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
    elif path.suffix == ".json":
        records = json.loads(text)
    else:
        import yaml

        records = yaml.safe_load(text)
    found: list[str] = []

    def walk(value):
        if isinstance(value, dict):
            found.extend(value[k] for k in _TEXT_KEYS if isinstance(value.get(k), str))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(records)
    return found


def bench_tasks() -> list[str]:
    """Every task text of every set under bench/ (Python sets and data files)."""
    texts = []
    for path in sorted((ROOT / "bench").rglob("*")):
        if path.suffix == ".py":
            texts += _tasks_in_python(path)
        elif path.suffix in (".json", ".jsonl", ".yaml", ".yml"):
            texts += _tasks_in_data(path)
    return sorted(set(texts))


BENCH = bench_tasks()


def test_the_bench_sets_are_found():
    # The reader must see the sets it guards (over a hundred tasks today).
    assert len(BENCH) > 100


# -- spelling ---------------------------------------------------------------------------


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


@pytest.mark.parametrize("top", ["agents", "tools", "smolui", "tests"])
def test_no_file_outside_bench_quotes_a_bench_task(top):
    suffixes = {".py", ".yaml", ".yml", ".md", ".js", ".json"}
    tasks = [_flat(task) for task in BENCH if len(task) > 12]
    quoted = []
    for path in (ROOT / top).rglob("*"):
        if path.suffix not in suffixes or "__pycache__" in path.parts or not path.is_file():
            continue
        text = _flat(path.read_text(encoding="utf-8", errors="replace"))
        quoted += [f"{path.relative_to(ROOT)}: {task!r}" for task in tasks if task in text]
    assert not quoted, "\n".join(quoted)


def shape(text: str) -> list[str]:
    """The words and operators of a task's question (its last line), with quoted text and
    numbers (dates too) masked."""
    question = text.strip().splitlines()[-1].lower()
    question = re.sub(r"'[^']*'|\"[^\"]*\"", " quoted ", question)
    question = re.sub(r"\d+(?:[.,:-]\d+)*", " number ", question)
    return re.findall(r"[a-z]+|[-+*/%^]", question)


def likeness(first: str, second: str) -> float:
    return difflib.SequenceMatcher(None, shape(first), shape(second)).ratio()


# -- meaning ----------------------------------------------------------------------------

# Units by kind: each name's spellings (matched at a word's start) and the kind it measures.
_UNITS = {
    "length": "millimet mm centimet cm kilomet km metre meter inch foot feet ft yard mile",
    "mass": "milligram mg kilogram kg kilo gram ounce oz pound lb tonne",
    "volume": "millilit ml litre liter gallon",
    "time": "millisecond second minute hour day week fortnight month year",
    "temperature": "celsius fahrenheit kelvin degree",
}
# Spellings of one unit, as its first spelling above.
_SAME_UNIT = {
    "mm": "millimet", "cm": "centimet", "km": "kilomet", "metre": "meter", "feet": "foot",
    "ft": "foot", "mg": "milligram", "kg": "kilogram", "kilo": "kilogram", "oz": "ounce",
    "lb": "pound", "ml": "millilit", "litre": "liter",
}  # fmt: skip


# What a word stands for in a task: its operation, or its role in the sentence.
_CONCEPTS = {
    "plus add added sum total altogether": "add",
    "minus subtract subtracted difference take away less": "subtract",
    "times multiply multiplied product": "multiply",
    "divide divided quotient share split per": "divide",
    "power squared cubed square cube raise raised exponent": "power",
    "root sqrt": "root",
    "percent percentage discount tip": "percent",
    "factorial": "factorial",
    "remainder modulo left over": "remainder",
    "average mean median": "average",
    "largest biggest greatest highest maximum max": "max",
    "smallest lowest least minimum min": "min",
    "count occur occurs appear appears often": "count",
    "length long characters character": "length",
    "reverse reversed backwards backward round": "reverse",
    "upper capital capitals uppercase": "upper",
    "lower lowercase small": "lower",
    "replace swap substitute": "replace",
    "word words": "words",
    "weekday week day of the": "weekday",
    "between from until since to": "span",
    "after before later earlier ago past on": "offset",
    "leap": "leap",
    "line lines row rows": "lines",
    "convert turn express change into in": "convert",
    "what which": "wh",
    "is are was were be does do did will": "be",
    "how many much": "amount",
}
_CONCEPT = {word: concept for words, concept in _CONCEPTS.items() for word in words.split()}
_OPERATIONS = set(_CONCEPT.values()) - {"wh", "be", "amount", "convert", "span", "offset"}
_STOP = frozenset(
    {"a", "an", "the", "of", "there", "please", "answer", "yes", "or", "no", "it", "that",
     "this", "with", "for", "use", "python", "me"}
)  # fmt: skip
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10, "half": 0.5}


def _unit(word: str) -> str | None:
    """The kind of unit a word names, or None."""
    name = _unit_name(word)
    return next((kind for kind, stems in _UNITS.items() if name in stems.split()), None)


def _unit_name(word: str) -> str | None:
    for stems in _UNITS.values():
        for stem in stems.split():
            if word.startswith(stem) and (len(stem) > 2 or word == stem):
                return stem
    return None


def question(text: str) -> str:
    return text.strip().splitlines()[-1].lower()


def numbers(text: str) -> frozenset[float]:
    """The numbers a question gives (dates as their parts, number words too)."""
    found = {float(n) for n in re.findall(r"\d+(?:\.\d+)?", question(text).replace(",", ""))}
    found |= {float(v) for w, v in _NUMBER_WORDS.items() if re.search(rf"\b{w}\b", question(text))}
    return frozenset(found)


def _phrases(text: str) -> str:
    """Phrases that name one operation, as its word."""
    return re.sub(r"how many times|how often|number of times", "count", text)


def concepts(text: str) -> list[str]:
    """The question as a sequence of what its words stand for: numbers, quoted text and units
    by kind masked, synonyms (and opposite directions) merged, filler dropped."""
    q = re.sub(r"'[^']*'|\"[^\"]*\"", " QUOTED ", _phrases(question(text)))
    q = re.sub(r"\d+(?:[.,:-]\d+)*", " NUMBER ", q)
    out = []
    for token in re.findall(r"QUOTED|NUMBER|[a-z]+|[-+*/%^]", q):
        if token in ("QUOTED", "NUMBER"):
            out.append(token)
        elif token in _STOP:
            continue
        else:
            out.append(_unit(token) or _CONCEPT.get(token, token))
    return out


def operations(text: str) -> frozenset[str]:
    """The operations and the units a question names ("hour": any unit spelled hour...)."""
    words = re.findall(r"[a-z]+", _phrases(question(text)))
    units = {_SAME_UNIT.get(unit, unit) for w in words if (unit := _unit_name(w))}
    return frozenset({_CONCEPT.get(w) for w in words} & _OPERATIONS) | units


def same_meaning(example: str, task: str) -> str:
    """Why an example means the bench task ("" when it does not)."""
    if numbers(example) and numbers(example) == numbers(task):
        shared = operations(example) & operations(task)
        if shared:
            return f"same numbers for {sorted(shared)}"
    ratio = difflib.SequenceMatcher(None, concepts(example), concepts(task)).ratio()
    if ratio >= TWIN_RATIO and len(concepts(task)) >= 3:
        return f"same sentence ({ratio:.2f})"
    if likeness(example, task) >= TWIN_RATIO:
        return f"same spelling ({likeness(example, task):.2f})"
    return ""


def twins(bank: tuple[WorkedExample, ...], tasks: list[str]) -> list[str]:
    return [
        f"{example.task!r} ~ {task!r}: {why}"
        for example in bank
        for task in tasks
        if (why := same_meaning(example.task, task))
    ]


def test_no_worked_example_shares_a_bench_tasks_wording_or_meaning():
    assert twins(example_bank(), BENCH) == []


@pytest.mark.parametrize(
    ("example", "task"),
    [
        # Paraphrases of one another, made up here (none is a bench task).
        ("Which year was 30 years before 2020?", "What year is 12 years after 1990?"),
        ("Turn 9 litres into millilitres.", "How many ml are in 9 liters?"),
        ("Multiply 14 by 32.", "What is the product of 14 and 32?"),
        ("Count the 'o' in 'onion soup'.", "How many times does 'k' occur in 'kayak'?"),
    ],
)
def test_the_meaning_check_catches_a_paraphrase(example, task):
    assert same_meaning(example, task)


@pytest.mark.parametrize(
    ("example", "task"),
    [
        ("Multiply 14 by 32.", "Divide 14 by 32."),
        ("Turn 150 minutes into hours.", "Which weekday was 9 May 1950?"),
        ("Give the mean of 4, 9 and 14.", "Pick the smallest of 31, 8 and 56."),
    ],
)
def test_the_meaning_check_lets_other_tasks_pass(example, task):
    assert same_meaning(example, task) == ""
