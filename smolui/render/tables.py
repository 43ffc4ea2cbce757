"""A table the code produced (a pandas DataFrame or Series) as a Markdown table for the chat.

Pure and without gradio: `smolui.render.messages` calls it for a step's last value and for a final
answer. Cells are escaped so that data never turns into Markdown, links or HTML.
"""

from __future__ import annotations

import re
from typing import Any

from agents.executors.previews import TablePreview

_SPECIAL = re.compile(r"([\\`*_\[\]<>|~$#!{}])")
MAX_CELL_CHARS = 80


def table_markdown(table: TablePreview) -> str:
    """A Markdown table of the first rows, with the size and what was left out.

    Args:
        table: The table to show.
    """
    rows, cols = table.shape
    numeric = [_numeric_column(table.rows, i) for i in range(len(table.columns))]
    header = "| " + " | ".join(_escape(c) or " " for c in table.columns) + " |"
    rule = "|" + "|".join("---:" if n else "---" for n in numeric) + "|"
    body = ["| " + " | ".join(_format(cell) for cell in row) + " |" for row in table.rows]
    lines = [f"**{table.kind}** · {rows:,} row{'s' if rows != 1 else ''} × "
             f"{cols:,} column{'s' if cols != 1 else ''}", "", header, rule, *body]  # fmt: skip
    more = []
    if table.more_rows:
        more.append(f"… {table.more_rows:,} more row{'s' if table.more_rows != 1 else ''}")
    if table.more_columns:
        more.append(f"… {table.more_columns:,} more column{'s' if table.more_columns != 1 else ''}")
    if more:
        lines += ["", " · ".join(more)]
    return "\n".join(lines)


def _numeric_column(rows: list[list[Any]], index: int) -> bool:
    values = [row[index] for row in rows if row[index] is not None]
    return bool(values) and all(type(v) in (int, float) for v in values)


def _format(cell: Any) -> str:
    if cell is None:
        return ""
    if type(cell) is float:  # four decimals, like pandas shows them, small values kept
        return f"{cell:.4g}" if 0 < abs(cell) < 1e-3 else f"{round(cell, 4):.15g}"
    return _escape(str(cell))


def _escape(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > MAX_CELL_CHARS:
        text = text[: MAX_CELL_CHARS - 1] + "…"
    return _SPECIAL.sub(r"\\\1", text)
