"""A worked example for a unit conversion, written for the task's own two units.

A tiny model copies the worked example it is shown, direction included: shown "45
millimeters in centimeters -> 45 / 10" for "How many centimeters are in 2.5 meters?", it
divides. So for a task that names two units of one kind (length, weight, volume, time,
temperature), the one after a number being the one to convert from, `conversion_example`
writes an example that converts between those same two units, in the same direction, with
another amount: the model has only to put its own number in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.small_model.examples import WorkedExample, operation_text, with_own_last

CATEGORY = "unit conversion"


@dataclass(frozen=True)
class Unit:
    """A unit: its kind, its size in the kind's base unit, and its names.

    Args:
        kind: length, weight, volume, time or temperature.
        size: How many base units one of it is (temperatures: unused).
        singular: The name of one.
        plural: The name of several.
        pattern: A regular expression matching its names at a word start.
    """

    kind: str
    size: float
    singular: str
    plural: str
    pattern: str


UNITS = (
    Unit("length", 0.001, "millimeter", "millimeters", r"millimet(?:er|re)s?|mm"),
    Unit("length", 0.01, "centimeter", "centimeters", r"centimet(?:er|re)s?|cm"),
    Unit("length", 1000.0, "kilometer", "kilometers", r"kilomet(?:er|re)s?|km"),
    Unit("length", 1.0, "meter", "meters", r"met(?:er|re)s?"),
    Unit("length", 0.0254, "inch", "inches", r"inch(?:es)?"),
    Unit("length", 0.3048, "foot", "feet", r"foot|feet|ft"),
    Unit("length", 0.9144, "yard", "yards", r"yards?"),
    Unit("length", 1609.344, "mile", "miles", r"miles?"),
    Unit("weight", 0.001, "milligram", "milligrams", r"milligrams?|mg"),
    Unit("weight", 1000.0, "kilogram", "kilograms", r"kilograms?|kilos?|kg"),
    Unit("weight", 1.0, "gram", "grams", r"grams?"),
    Unit("weight", 1_000_000.0, "tonne", "tonnes", r"tonnes?|metric tons?"),
    Unit("weight", 28.349523125, "ounce", "ounces", r"ounces?|oz"),
    Unit("weight", 453.59237, "pound", "pounds", r"pounds?|lbs?"),
    Unit("volume", 0.001, "milliliter", "milliliters", r"millilit(?:er|re)s?|ml"),
    Unit("volume", 0.01, "centiliter", "centiliters", r"centilit(?:er|re)s?|cl"),
    Unit("volume", 1.0, "liter", "liters", r"lit(?:er|re)s?"),
    Unit("volume", 3.785411784, "gallon", "gallons", r"gallons?"),
    Unit("time", 0.001, "millisecond", "milliseconds", r"milliseconds?"),
    Unit("time", 1.0, "second", "seconds", r"seconds?|secs?"),
    Unit("time", 60.0, "minute", "minutes", r"minutes?|mins?"),
    Unit("time", 3600.0, "hour", "hours", r"hours?|hrs?"),
    Unit("time", 86400.0, "day", "days", r"days?"),
    Unit("time", 604800.0, "week", "weeks", r"weeks?"),
    Unit("temperature", 0.0, "degree Celsius", "degrees Celsius", r"celsius|centigrade"),
    Unit("temperature", 0.0, "degree Fahrenheit", "degrees Fahrenheit", r"fahrenheit"),
    Unit("temperature", 0.0, "kelvin", "kelvin", r"kelvins?"),
)
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "half a": 0.5,
}  # fmt: skip
_AMOUNT = r"(?P<amount>-?\d+(?:\.\d+)?|half an?|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve)"
# Between an amount and its unit: spaces, "degrees" before a temperature scale.
_GAP = r"\s*(?:degrees?\s+|°\s*)?"
# Temperature formulas: from -> to -> (thought, code) with {n} for the amount. One factor
# (1.8) rather than "9 / 5": shown "* 9 / 5 + 32", the tiny model garbles the fraction
# ("* 10 / 18 + 32"); a single multiplication and an offset it copies.
_TEMPERATURE = {
    ("degree Celsius", "degree Fahrenheit"): ("{n} Celsius is {n} * 1.8 + 32 Fahrenheit.", "{n} * 1.8 + 32"),
    ("degree Fahrenheit", "degree Celsius"): ("{n} Fahrenheit is ({n} - 32) / 1.8 Celsius.", "({n} - 32) / 1.8"),
    ("degree Celsius", "kelvin"): ("{n} Celsius is {n} + 273.15 kelvin.", "{n} + 273.15"),
    ("kelvin", "degree Celsius"): ("{n} kelvin is {n} - 273.15 Celsius.", "{n} - 273.15"),
    ("degree Fahrenheit", "kelvin"): ("{n} Fahrenheit is ({n} - 32) / 1.8 + 273.15 kelvin.", "({n} - 32) / 1.8 + 273.15"),
    ("kelvin", "degree Fahrenheit"): ("{n} kelvin is ({n} - 273.15) * 1.8 + 32 Fahrenheit.", "({n} - 273.15) * 1.8 + 32"),
}  # fmt: skip
# Amounts for the example: the first that differs from the task's amount.
_EXAMPLE_AMOUNTS = (3, 4, 7, 12)


@dataclass(frozen=True)
class Conversion:
    """A task's conversion: from which unit to which, and how much.

    Args:
        source: The unit to convert from (the one after the amount).
        target: The unit asked for.
        amount: The amount as the task writes it ("2.5", "one").
    """

    source: Unit
    target: Unit
    amount: str


def find_conversion(text: str) -> Conversion | None:
    """The conversion a task asks for, or None: exactly two units of one kind are named and
    exactly one of them comes after an amount ("5 kilometers", "one day", "a week").

    Args:
        text: The task as category keywords see it (`agents.small_model.examples.operation_text`).
    """
    found: list[tuple[int, Unit, str | None]] = []
    taken: list[tuple[int, int]] = []
    for unit in UNITS:
        for match in re.finditer(rf"(?<![\w.-]){_AMOUNT}?{_GAP}\b(?:{unit.pattern})\b", text):
            start, end = match.span()
            name_start = end - len(_unit_name(match, unit))
            if any(a < end and name_start < b for a, b in taken):
                continue
            taken.append((name_start, end))
            found.append((name_start, unit, match.group("amount")))
    units = {unit for _, unit, _ in found}
    if len(units) != 2 or len({unit.kind for unit in units}) != 1:
        return None
    with_amount = [(unit, amount) for _, unit, amount in found if amount]
    if len({unit for unit, _ in with_amount}) != 1:
        return None
    source, amount = with_amount[0]
    (target,) = units - {source}
    return Conversion(source, target, amount)


def _unit_name(match: re.Match[str], unit: Unit) -> str:
    name = re.search(rf"(?:{unit.pattern})$", match.group(0))
    return name.group(0) if name else match.group(0)


def conversion_examples(task: str, count: int = 2) -> list[WorkedExample]:
    """Worked examples of the task's own conversion, each with another amount and the task's
    own wording; none when the task asks for no conversion between two known units.

    Args:
        task: The user's task.
        count: How many (at most 3).
    """
    conversion = find_conversion(operation_text(task))
    return [] if conversion is None else _examples_of(task, conversion, count)


def _examples_of(task: str, conversion: Conversion, count: int) -> list[WorkedExample]:
    amount = _amount_value(conversion.amount)
    amounts = [a for a in _EXAMPLE_AMOUNTS if a != amount][:count]
    return [_example(task, conversion, n) for n in amounts]


def _example(task: str, conversion: Conversion, n: int) -> WorkedExample:
    """The task asked for `n` of its source unit, solved."""
    source, target = conversion.source, conversion.target
    amount = re.escape(conversion.amount)
    written = rf"(?<![\w.-]){amount}{_GAP}\b(?:{source.pattern})\b"
    task = re.sub(written, f"{n} {source.plural}", task, count=1, flags=re.IGNORECASE)
    if source.kind == "temperature":
        thought, code = _TEMPERATURE[(source.singular, target.singular)]
        return WorkedExample(
            task, thought.format(n=n), f"final_answer({code.format(n=n)})", CATEGORY
        )
    if source.size >= target.size:
        factor = _number(source.size / target.size)
        thought = (
            f"1 {source.singular} is {factor} {target.plural}, "
            f"so {n} {source.plural} is {n} * {factor} {target.plural}."
        )
        return WorkedExample(task, thought, f"final_answer({n} * {factor})", CATEGORY)
    factor = _number(target.size / source.size)
    thought = (
        f"{factor} {source.plural} make 1 {target.singular}, "
        f"so {n} {source.plural} is {n} / {factor} {target.plural}."
    )
    return WorkedExample(task, thought, f"final_answer({n} / {factor})", CATEGORY)


def with_conversion_examples(task: str, examples: list[WorkedExample]) -> list[WorkedExample]:
    """`examples` (the best last) with two of the task's own conversion last, in place of
    the weakest; examples that convert the other way (dividing where the task's conversion
    multiplies, or the reverse) leave first. A temperature conversion (a formula with an
    offset, which the model garbles unless every example shows it) gets its own examples
    only. Unchanged for other tasks.

    Args:
        task: The user's task.
        examples: The examples picked for it (`agents.small_model.examples.pick_examples`).
    """
    conversion = find_conversion(operation_text(task))
    if conversion is None:
        return examples
    if conversion.source.kind == "temperature":
        # A formula with an offset: every example shows it, none shows another.
        return _examples_of(task, conversion, len(examples))
    own = _examples_of(task, conversion, min(2, len(examples)))
    if not own:
        return examples
    other_way = " / " if " * " in own[0].code else " * "
    kept = [example for example in examples if other_way not in example.code]
    return with_own_last(kept, own, len(examples))


def _amount_value(amount: str) -> float | None:
    if amount in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[amount])
    try:
        return float(amount)
    except ValueError:
        return None


def _number(value: float) -> str:
    """A factor as the example writes it: 1000, 3, 1.609344, 2.20462."""
    if abs(value - round(value)) < 1e-9 * max(1.0, abs(value)):
        return str(round(value))
    return f"{value:.6g}"
