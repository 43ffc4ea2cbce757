"""The example bank teaches operations: every example belongs to a known category, and a task
worded like an example's own finds examples of that category (its keywords name it).

That no example shares a bench task's wording or meaning is checked in
`test_small_bench_apart.py`, which reads the bench sets as data.
"""

from __future__ import annotations

import pytest

from agents.small_model.examples import (
    example_bank,
    example_categories,
    operation_text,
    pick_examples,
)


def test_every_example_belongs_to_a_known_category():
    names = [category.name for category in example_categories()]
    assert len(names) == len(set(names))
    assert {example.category for example in example_bank()} == set(names)


def _named(example) -> bool:
    """Whether an example's own task uses its category's keywords."""
    category = next(c for c in example_categories() if c.name == example.category)
    return category.score(operation_text(example.task), "'" in example.task) > 0


def test_most_examples_are_worded_with_their_categorys_keywords():
    # Some teach by a wording of their own ("the other way round"); most must be findable.
    named = [example for example in example_bank() if _named(example)]
    assert len(named) >= 0.8 * len(example_bank())


@pytest.mark.parametrize(
    "example",
    [example for example in example_bank() if _named(example)],
    ids=lambda example: example.task[:40],
)
def test_a_task_worded_like_an_example_retrieves_its_category(example):
    best = pick_examples(example.task, 3)[-1]
    assert best.category == example.category, (best.task, best.category)


def test_a_task_about_a_file_gets_only_file_examples():
    file_categories = {c.name for c in example_categories() if c.file}
    task = 'The user attached 1 file. - "pets.txt": path: /tmp/u/pets.txt.\nWhich pet is last?'
    picked = pick_examples(task, 3)
    assert picked and {example.category for example in picked} <= file_categories
