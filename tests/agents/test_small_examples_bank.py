"""The example bank teaches operations, not answers: no worked example is a near copy of a
task the small-model bench measures, and each bench task finds examples of its operation."""

from __future__ import annotations

import difflib
import re

import pytest

from agents.small_model.examples import (
    WorkedExample,
    example_bank,
    example_categories,
    operation_text,
    pick_examples,
)
from bench.small_model_tasks import FRESH, FRESH_2, FRESH_3, FRESH_4, FRESH_5, HELD_OUT, TASKS

ALL_TASKS = [*TASKS, *HELD_OUT, *FRESH, *FRESH_2, *FRESH_3, *FRESH_4, *FRESH_5]
# Two texts this alike once numbers and quoted words are masked are the same task.
TWIN_RATIO = 0.8


def shape(text: str) -> list[str]:
    """The words and operators of a task's question (its last line), with quoted text and
    numbers (dates too) masked."""
    question = text.strip().splitlines()[-1].lower()
    question = re.sub(r"'[^']*'|\"[^\"]*\"", " quoted ", question)
    question = re.sub(r"\d+(?:[.,:-]\d+)*", " number ", question)
    return re.findall(r"[a-z]+|[-+*/%^]", question)


def likeness(first: str, second: str) -> float:
    return difflib.SequenceMatcher(None, shape(first), shape(second)).ratio()


def twins(bank: tuple[WorkedExample, ...]) -> list[tuple[str, str, float]]:
    found = []
    for example in bank:
        for task in ALL_TASKS:
            ratio = likeness(example.task, task.text)
            if ratio >= TWIN_RATIO:
                found.append((example.task, task.text, round(ratio, 2)))
    return found


def test_no_example_is_a_twin_of_a_bench_task():
    assert twins(example_bank()) == []


def test_the_twin_check_catches_a_copy_with_other_numbers_or_words():
    copies = (
        WorkedExample("Convert 1.2 kilograms to grams.", "x", "final_answer(1)"),
        WorkedExample("What is 6 factorial?", "x", "final_answer(1)"),
        WorkedExample("Reverse the string 'good day'.", "x", "final_answer(1)"),
        WorkedExample("How many minutes are in 2 hours?", "x", "final_answer(1)"),
    )
    assert len({example for example, _, _ in twins(copies)}) == len(copies)
    assert likeness("Turn 6 yards into feet.", "Convert 3 feet to inches.") < TWIN_RATIO


@pytest.mark.parametrize("task", ALL_TASKS, ids=lambda task: task.text[:40])
def test_every_bench_task_gets_examples_of_a_category_it_names(task):
    """Each task's best example comes from a category whose keywords the task uses: the
    choice is made by operation, never by falling back to surface likeness alone."""
    text = task.text
    if task.uploads:
        name = task.uploads[0][0]
        text = f'The user attached 1 file. - "{name}": text file; path: /tmp/u/{name}.\n{text}'
    best = pick_examples(text, 3)[-1]
    category = next(c for c in example_categories() if c.name == best.category)
    assert category.file == bool(task.uploads)
    assert category.score(operation_text(text), "'" in text) > 0, category.name


def test_every_example_belongs_to_a_known_category():
    names = [category.name for category in example_categories()]
    assert len(names) == len(set(names))
    assert {example.category for example in example_bank()} == set(names)
