"""`convert_units`: a quantity from one unit to another, with `pint`'s unit definitions.

Lengths, masses, volumes, times, speeds, areas, energies, temperatures (offsets included)
and the rest of what `pint` knows; units by name or symbol, plurals and any case
("Kilometers", "km", "degrees Celsius", "degF", "miles per hour").
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from tools.base import Tool, ToolArgumentError

# "degrees Celsius", "°F", "degrees C": a temperature scale written with its degrees.
_DEGREES = re.compile(r"^(?:°|degrees?\s+|deg\.?\s+)\s*(?P<scale>[a-z]+)$", re.IGNORECASE)
_SIGNIFICANT_DIGITS = 12  # past these, a float's last digits are rounding noise


class ConvertUnitsTool(Tool):
    """Converts a value between units of the same kind (lengths, masses, temperatures...)."""

    name = "convert_units"
    description = (
        "Converts a value from one unit to another: convert_units(5, 'miles', 'km') gives "
        "8.04672. Knows lengths, masses, volumes, times, speeds, areas, energies, "
        "temperatures ('celsius', 'fahrenheit', 'kelvin') and more, by name or symbol."
    )
    inputs = {
        "value": {"type": "number", "description": "The amount to convert."},
        "from_unit": {"type": "string", "description": "The unit of the value, e.g. 'km'."},
        "to_unit": {"type": "string", "description": "The unit wanted, e.g. 'miles'."},
    }
    output_type = "number"

    def forward(self, value: float, from_unit: str, to_unit: str) -> float | int:
        return convert_units(value, from_unit, to_unit)


def convert_units(value: float, from_unit: str, to_unit: str) -> float | int:
    """`value` in `from_unit`, expressed in `to_unit`: an int when it is a whole number.

    Args:
        value: The amount to convert.
        from_unit: Its unit (a name or symbol, e.g. "kilometers", "km", "degC").
        to_unit: The unit wanted.

    Raises:
        ToolArgumentError: An unknown unit, a value that is not a number, or two units of
            different kinds (e.g. meters to seconds); the message says which.
    """
    import pint

    value = _number(value)
    registry = _registry()
    source, target = _unit(registry, from_unit), _unit(registry, to_unit)
    try:
        converted = registry.Quantity(value, source).to(target).magnitude
    except pint.DimensionalityError:
        raise ToolArgumentError(
            f"Cannot convert {from_unit!r} ({_kind(registry, source)}) to {to_unit!r} "
            f"({_kind(registry, target)}): they measure different things."
        ) from None
    return _tidy(float(converted))


def _number(value: Any) -> float | int:
    """`value` as a number; a numeric string is taken too (small models quote numbers)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            pass
    raise ToolArgumentError(f"convert_units needs a number as its value, not {value!r}.")


@cache
def _registry() -> Any:
    """pint's unit registry, built once on first use (it parses its definitions file)."""
    import pint

    return pint.UnitRegistry(autoconvert_offset_to_baseunit=True)


def _unit(registry: Any, text: Any) -> Any:
    """The pint unit that `text` names."""
    if not isinstance(text, str) or not text.strip():
        raise ToolArgumentError(f"A unit must be a name such as 'km' or 'celsius', not {text!r}.")
    name = text.strip()
    degrees = _DEGREES.match(name)
    if degrees:  # pint knows "celsius" and "degC", but reads "C" alone as coulombs
        scale = degrees["scale"]
        name = f"deg{scale}" if len(scale) == 1 else scale
    # As written first ("mm" and "Mm" differ), then lower case, as people capitalize
    # ("Kilometers", "KM", "Celsius").
    for candidate in dict.fromkeys((name, name.lower())):
        try:
            return registry.parse_units(candidate)
        except Exception:  # pint's parser raises many kinds of error on text it cannot read
            continue
    raise ToolArgumentError(
        f"Unknown unit {text!r}. Use a unit's name or symbol, e.g. 'meter', 'km', 'lb', "
        "'hour', 'celsius'."
    )


def _kind(registry: Any, unit: Any) -> str:
    """What a unit measures, e.g. "a length" or "[mass] / [length] ** 3"."""
    dimensionality = str(registry.get_dimensionality(unit))
    plain = re.fullmatch(r"\[(\w+)\]", dimensionality)
    return f"a {plain.group(1)}" if plain else dimensionality


def _tidy(number: float) -> float | int:
    """`number` without rounding noise (25 degC is 77 degF, not 76.99999999999999)."""
    rounded = float(f"{number:.{_SIGNIFICANT_DIGITS}g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded
