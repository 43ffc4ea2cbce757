"""Tables in the chat: a DataFrame/Series answer or step value renders as a Markdown table
(first rows, what was left out, data escaped); malformed table data from a worker is refused.
"""

from __future__ import annotations

import re

import pytest

from agents.executors.previews import MAX_ROWS, as_table, table_from_tree, table_tree
from agents.memory.steps import ActionStep
from smolui.render.messages import render_action_step, render_final_answer

pd = pytest.importorskip("pandas")


def test_a_dataframe_answer_is_a_markdown_table_of_its_first_rows():
    frame = pd.DataFrame({"month": [f"m{i}" for i in range(80)], "total": range(80)})
    frame.loc[0, "month"] = "<script>alert(1)</script> a|b *bold*"
    content = render_final_answer(frame)["content"]
    lines = content.splitlines()
    assert lines[0] == "**DataFrame** · 80 rows × 2 columns"
    assert lines[2:4] == ["| month | total |", "|---|---:|"]
    assert lines[4] == r"| \<script\>alert(1)\</script\> a\|b \*bold\* | 0 |"
    assert sum(bool(re.fullmatch(r"\| m\d+ \| \d+ \|", line)) for line in lines) == MAX_ROWS - 1
    assert lines[-1] == f"… {80 - MAX_ROWS} more rows"


def test_a_series_with_an_index_and_missing_values():
    series = pd.Series([1.23456789, None, 3e-7], index=["a", "b", "c"], name="v")
    content = render_final_answer(series)["content"]
    assert "**Series** · 3 rows × 1 column" in content
    assert "| a | 1.2346 |" in content and "| b |  |" in content and "| c | 3e-07 |" in content
    assert "more rows" not in content


def test_a_table_as_a_step_value_becomes_a_table_child():
    step = ActionStep(step_number=2, model_output="Thought: look", code_action="df")
    step.action_output = as_table(pd.DataFrame({"x": [1, 2]}))
    messages = render_action_step(step, "t-2")
    tables = [m for m in messages if m.get("metadata", {}).get("title") == "Table"]
    assert len(tables) == 1 and tables[0]["metadata"]["parent_id"] == "t-2"
    assert "| x |" in tables[0]["content"] and "| 2 |" in tables[0]["content"]
    plain = ActionStep(step_number=3, model_output="x", code_action="1")
    plain.action_output = 1
    titles = [m.get("metadata", {}).get("title") for m in render_action_step(plain, "t-3")]
    assert "Table" not in titles


def test_the_model_reads_a_compact_preview_not_the_repr():
    frame = pd.DataFrame({"n": range(100_000), "w": ["x" * 300] * 100_000})
    table = as_table(frame)
    assert str(table).startswith("pandas DataFrame: 100000 rows × 2 columns")
    assert len(str(table)) < 4200 and "… 99990 more rows" in str(table)


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t["v"].update(rows=[[1]] * (MAX_ROWS + 1)),
        lambda t: t["v"].update(rows=[[1, 2, 3]]),
        lambda t: t["v"].update(rows=[[{"nested": 1}]]),
        lambda t: t["v"].update(rows=[["x" * 5000]]),
        lambda t: t["v"].update(shape=[-1, 1]),
        lambda t: t["v"].update(columns=["c"] * 500),
        lambda t: t.update(repr=None),
    ],
)
def test_malformed_table_data_from_a_worker_is_not_rendered(change):
    tree = table_tree(pd.DataFrame({"c": [1]}))
    assert table_from_tree(tree) is not None
    change(tree)
    assert table_from_tree(tree) is None
