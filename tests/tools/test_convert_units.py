"""`convert_units`: conversions through pint, the errors a model reads, and the app giving the
tool to every agent."""

from __future__ import annotations

import pytest

from agents.loop.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel
from smolui.app.factory import AgentFactory
from smolui.app.settings import Settings
from tools.base import ToolArgumentError
from tools.convert_units import ConvertUnitsTool, convert_units


@pytest.mark.parametrize(
    "value, source, target, expected",
    [
        (2.2, "pounds", "kg", 0.997903214),
        (3, "ounces", "g", 85.04856926),
        (1, "mile", "kilometers", 1.609344),
        (90, "minutes", "hours", 1.5),
        (1, "gallon", "liters", 3.785411784),
        (100, "km/h", "m/s", 27.7777777778),
        (2, "square meters", "square feet", 21.5278208334),
        (1, "kWh", "joules", 3_600_000),
        # temperatures are offsets, not factors
        (-10, "degC", "degF", 14),
        (-40, "fahrenheit", "celsius", -40),
        (0, "celsius", "kelvin", 273.15),
        (37, "degrees Celsius", "degrees Fahrenheit", 98.6),
        (50, "°F", "°C", 10),
        # people capitalize; a quoted number is taken as a number
        (10, "Yards", "Meters", 9.144),
        ("12", "inch", "ft", 1),
    ],
)
def test_conversions(value, source, target, expected):
    assert convert_units(value, source, target) == pytest.approx(expected)


def test_whole_results_are_ints_and_float_noise_is_rounded_off():
    assert convert_units(2, "kWh", "Wh") == 2000 and isinstance(convert_units(2, "kWh", "Wh"), int)
    assert repr(convert_units(15, "celsius", "fahrenheit")) == "59"
    assert convert_units(0.1, "m", "cm") == 10  # 0.1 * 100 is 10.000000000000002 in floats


def test_case_matters_first_where_it_changes_the_unit():
    assert convert_units(1, "Mm", "mm") == 1_000_000_000  # megametre, millimetre


def test_an_unknown_unit_is_named_in_the_error():
    with pytest.raises(ToolArgumentError, match="Unknown unit 'florps'.*'km'"):
        convert_units(1, "florps", "m")
    with pytest.raises(ToolArgumentError, match="Unknown unit 'm\\*\\*'"):
        convert_units(1, "km", "m**")


def test_units_of_different_kinds_say_what_each_measures():
    with pytest.raises(
        ToolArgumentError,
        match=r"Cannot convert 'm' \(a length\) to 's' \(a time\): they measure different",
    ):
        convert_units(1, "m", "s")
    with pytest.raises(ToolArgumentError, match=r"'kg' \(a mass\) to 'm/s' \(\[length\] / \["):
        convert_units(1, "kg", "m/s")


@pytest.mark.parametrize("value", ["many", None, True, [1]])
def test_a_value_that_is_not_a_number_is_refused(value):
    with pytest.raises(ToolArgumentError, match="needs a number as its value"):
        convert_units(value, "m", "km")


def test_a_blank_unit_is_refused():
    with pytest.raises(ToolArgumentError, match="A unit must be a name"):
        convert_units(1, " ", "m")


def test_a_code_agent_calls_it_from_its_code():
    model = ScriptedModel(["<code>\nfinal_answer(convert_units(5, 'miles', 'km'))\n</code>"])
    agent = CodeAgent([ConvertUnitsTool()], model, executor_type="local", verbosity_level=-1)
    try:
        assert agent.run("How far is 5 miles in km?") == pytest.approx(8.04672)
    finally:
        agent.close()


def test_a_model_mistake_goes_back_to_the_model():
    model = ScriptedModel(
        [
            "<code>\nfinal_answer(convert_units(5, 'miles', 'kilograms'))\n</code>",
            "<code>\nfinal_answer(convert_units(5, 'miles', 'kilometers'))\n</code>",
        ]
    )
    agent = CodeAgent([ConvertUnitsTool()], model, executor_type="local", verbosity_level=-1)
    try:
        assert agent.run("How far is 5 miles?") == pytest.approx(8.04672)
        errors = [str(step.error) for step in agent.memory.steps if getattr(step, "error", None)]
        assert any("measure different things" in error for error in errors)
    finally:
        agent.close()


def test_every_agent_of_the_app_gets_the_tool_whatever_its_model(tmp_path):
    settings = Settings(model="scripted:demo", executor="local", data_dir=str(tmp_path / "data"))
    for agent_type in ("code", "tool_calling"):
        factory = AgentFactory(settings.with_changes(agent_type=agent_type), loader=None)
        agent = factory(tmp_path / agent_type)
        try:
            assert "convert_units" in agent.tools
            assert "read_document" in agent.tools
        finally:
            agent.close()
