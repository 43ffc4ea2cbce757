"""Unit conversions get worked examples of their own two units, in their own direction."""

from __future__ import annotations

import re

import pytest

from agents.small_model.examples import operation_text, pick_examples
from agents.small_model.units import conversion_examples, find_conversion, with_conversion_examples


@pytest.mark.parametrize(
    ("task", "source", "target", "amount"),
    [
        ("How many centimeters are in 2.5 meters?", "meter", "centimeter", "2.5"),
        ("Convert 1500 meters to kilometers.", "meter", "kilometer", "1500"),
        ("How many seconds are in one day?", "day", "second", "one"),
        ("How many hours are in a week?", "week", "hour", "a"),
        ("Convert 68 degrees Fahrenheit to Celsius.", "degree Fahrenheit", "degree Celsius", "68"),
        ("What is 12 lbs in kg?", "pound", "kilogram", "12"),
    ],
)
def test_the_unit_after_the_amount_is_the_one_to_convert_from(task, source, target, amount):
    conversion = find_conversion(operation_text(task))
    assert conversion is not None
    assert (conversion.source.singular, conversion.target.singular) == (source, target)
    assert conversion.amount == amount


@pytest.mark.parametrize(
    "task",
    [
        "How many days are between 2024-01-01 and 2024-03-01?",  # one unit
        "What is 5 km per hour in meters per second?",  # two kinds
        "Is 3 meters more than 300 centimeters?",  # both have an amount
        "What is 17 * 23?",
    ],
)
def test_no_conversion_where_the_task_asks_for_none(task):
    assert find_conversion(operation_text(task)) is None
    assert conversion_examples(task) == []


@pytest.mark.parametrize(
    ("task", "code"),
    [
        ("How many centimeters are in 2.5 meters?", "final_answer(3 * 100)"),
        ("Convert 1500 meters to kilometers.", "final_answer(3 / 1000)"),
        ("How many weeks are in 84 days?", "final_answer(3 / 7)"),
        ("How many seconds are in 3 hours?", "final_answer(4 * 3600)"),
        ("Convert 68 degrees Fahrenheit to Celsius.", "final_answer((3 - 32) / 1.8)"),
        ("How far is 10 miles in km?", "final_answer(3 * 1.60934)"),
    ],
)
def test_the_example_converts_the_same_way_with_another_amount(task, code):
    first, second = conversion_examples(task)
    assert first.code == code
    assert second.code != first.code and second.category == first.category


def test_the_example_keeps_the_tasks_wording_with_its_own_amount():
    first, _ = conversion_examples("How many seconds are in 3 hours?")
    assert first.task == "How many seconds are in 4 hours?"
    assert "1 hour is 3600 seconds" in first.thought
    celsius, _ = conversion_examples("Convert 25 degrees Celsius to Fahrenheit.")
    assert celsius.task == "Convert 3 degrees Celsius to Fahrenheit."
    assert eval(celsius.code.removeprefix("final_answer")) == pytest.approx(3 * 1.8 + 32)


def test_examples_that_convert_the_other_way_make_room_first():
    task = "How many centimeters are in 6 meters?"
    picked = pick_examples(task, 3)
    examples = with_conversion_examples(task, picked)
    assert len(examples) == 3 and examples[-1].code == "final_answer(4 * 100)"
    assert not any(" / " in example.code for example in examples)


@pytest.mark.parametrize(
    ("task", "amount", "expected"),
    [
        ("Convert 25 degrees Celsius to Fahrenheit.", 25, 77),
        ("Convert 0 degrees Celsius to Fahrenheit.", 0, 32),
        ("Convert 68 degrees Fahrenheit to Celsius.", 68, 20),
        ("What is 300 kelvin in Celsius?", 300, 26.85),
    ],
)
def test_a_temperature_task_sees_only_its_own_formula(task, amount, expected):
    examples = with_conversion_examples(task, pick_examples(task, 3))
    assert len(examples) == 3
    formulas = set()
    for example in examples:
        # The task's own wording with another amount, solved by the one formula.
        shown = re.search(r"\d+", example.task).group(0)
        assert shown != str(amount) and example.task == task.replace(str(amount), shown, 1)
        formulas.add(example.code.removeprefix("final_answer").replace(shown, "{n}", 1))
    assert len(formulas) == 1
    formula = formulas.pop()
    assert "9 / 5" not in formula and "5 / 9" not in formula
    assert eval(formula.format(n=amount)) == pytest.approx(expected)


def test_other_tasks_keep_their_examples():
    task = "What is 1234 + 5678?"
    picked = pick_examples(task, 3)
    assert with_conversion_examples(task, picked) == picked
