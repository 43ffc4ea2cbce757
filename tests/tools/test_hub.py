"""Tools saved to folders and loaded back; trust_remote_code; the Hub calls (network only)."""

from __future__ import annotations

import math
import os
import py_compile
import uuid
from pathlib import Path

import numpy as np
import pytest

from tools import Tool, load_tool, tool
from tools.base import ToolDefinitionError
from tools.hub import TrustRemoteCodeError, save_tool
from tools.visit_webpage import VisitWebpageTool

SCALE = 3


@tool
def hypotenuse(a: float, b: float, rounded: bool = False) -> float:
    """Length of the hypotenuse of a right triangle, times SCALE.

    Args:
        a: First side.
        b: Second side.
        rounded: Round the result.
    """
    value = math.hypot(a, b) * SCALE
    return round(value) if rounded else value


class MeanTool(Tool):
    name = "mean"
    description = "The mean of a list of numbers."
    inputs = {"values": {"type": "array", "description": "The numbers."}}
    output_type = "number"

    def forward(self, values: list) -> float:
        return float(np.mean(values))


def _helper(x: float) -> float:
    return x * 2


@tool
def uses_helper(x: float) -> float:
    """Doubles a number with a helper defined outside.

    Args:
        x: The number.
    """
    return _helper(x)


def test_function_tool_round_trip(tmp_path: Path) -> None:
    hypotenuse.save(str(tmp_path / "hyp"))
    source = (tmp_path / "hyp" / "tool.py").read_text()
    assert "import math" in source and "SCALE = 3" in source and "@tool" in source
    loaded = load_tool(str(tmp_path / "hyp"), trust_remote_code=True)
    assert loaded.name == "hypotenuse"
    assert loaded.inputs == hypotenuse.inputs and loaded.description == hypotenuse.description
    assert loaded(a=3, b=4) == pytest.approx(15.0)
    assert loaded(a=3, b=4, rounded=True) == 15


def test_class_tool_round_trip_with_requirements(tmp_path: Path) -> None:
    MeanTool().save(str(tmp_path / "mean"))
    folder = tmp_path / "mean"
    assert (folder / "requirements.txt").read_text().split() == ["gradio", "numpy"]
    loaded = Tool.from_hub(str(folder), trust_remote_code=True)
    assert type(loaded).__name__ == "MeanTool" and loaded is not MeanTool
    assert loaded(values=[1, 2, 3, 6]) == 3.0
    assert loaded.to_tool_schema() == MeanTool().to_tool_schema()


def test_project_tool_round_trip(tmp_path: Path) -> None:
    VisitWebpageTool().save(str(tmp_path / "visit"), make_gradio_app=False)
    assert not (tmp_path / "visit" / "app.py").exists()
    loaded = load_tool(str(tmp_path / "visit"), trust_remote_code=True)
    assert isinstance(loaded, VisitWebpageTool)


def test_loading_without_trust_runs_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "evil"
    folder.mkdir()
    marker = tmp_path / f"ran-{uuid.uuid4().hex}"
    (folder / "tool.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    with pytest.raises(TrustRemoteCodeError, match="trust_remote_code=True"):
        load_tool(str(folder))
    with pytest.raises(TrustRemoteCodeError):
        Tool.from_hub(str(folder))
    assert not marker.exists()


def test_tool_using_outside_helper_cannot_be_saved(tmp_path: Path) -> None:
    with pytest.raises(ToolDefinitionError, match="'_helper'.*defined outside"):
        uses_helper.save(str(tmp_path / "helper"))


def test_folder_without_tool_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no tool.py"):
        load_tool(str(tmp_path), trust_remote_code=True)
    (tmp_path / "tool.py").write_text("x = 1\n")
    with pytest.raises(Exception, match="defines no Tool"):
        load_tool(str(tmp_path), trust_remote_code=True)


def test_gradio_app_is_valid_python(tmp_path: Path) -> None:
    save_tool(hypotenuse, tmp_path)
    py_compile.compile(str(tmp_path / "app.py"), doraise=True)
    assert "load_tool" in (tmp_path / "app.py").read_text()


@pytest.mark.network
def test_push_to_hub_and_load_back() -> None:
    repo = os.environ.get("SMOLUI_TEST_SPACE")
    if not repo or not os.environ.get("HF_TOKEN"):
        pytest.skip("set SMOLUI_TEST_SPACE and HF_TOKEN to run against the Hub")
    hypotenuse.push_to_hub(repo, commit_message="test upload")
    loaded = load_tool(repo, trust_remote_code=True, force_download=True)
    assert loaded(a=3, b=4) == pytest.approx(15.0)
