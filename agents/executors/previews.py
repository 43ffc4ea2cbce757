"""Tables that cross from the code to the host as data: a pandas DataFrame or Series.

In the worker, `table_tree` turns a DataFrame/Series into a small JSON tree: its shape,
columns, dtypes, the first `MAX_ROWS` rows as plain values, and a compact text preview
(shape, dtypes, first rows) for the model, never a huge repr and never pickle. On the
host, `table_from_tree` checks that tree and returns a `TablePreview`: a `str` (the text
preview, what the model reads) that also carries the rows the chat renders as a table.
A table given to `final_answer` also carries all its cells (`frame_data`), within a size
cap, so the host can rebuild a DataFrame (`agents.executors.frames`), as smolagents returns.
Only the standard library is imported here: the sandbox worker loads this module.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

TABLE_TAG = "table"
MAX_ROWS = 50
MAX_COLUMNS = 30
MAX_CELL_CHARS = 200
MAX_PREVIEW_CHARS = 4000
PREVIEW_ROWS = 10
_TAG = "$t"


class TablePreview(str):
    """A table the code produced: reads as its compact text preview, carries its first rows.

    Args:
        text: The preview for the model (shape, dtypes, first rows).
        kind: "DataFrame" or "Series".
        shape: Rows and columns of the whole table.
        columns: Column names (the index first when `has_index`).
        dtypes: The dtype of each column, by position.
        rows: The first rows, each a list of plain values.
        more_columns: Columns left out of `columns`.
        has_index: The first column holds the index.
    """

    kind: str
    shape: tuple[int, int]
    columns: list[str]
    dtypes: list[str]
    rows: list[list[Any]]
    more_columns: int
    has_index: bool

    def __new__(cls, text: str, **fields: Any) -> TablePreview:
        obj = super().__new__(cls, text)
        obj.kind = str(fields.get("kind", "DataFrame"))
        obj.shape = tuple(fields.get("shape", (0, 0)))  # type: ignore[assignment]
        obj.columns = list(fields.get("columns", []))
        obj.dtypes = list(fields.get("dtypes", []))
        obj.rows = [list(row) for row in fields.get("rows", [])]
        obj.more_columns = int(fields.get("more_columns", 0))
        obj.has_index = bool(fields.get("has_index", False))
        return obj

    @property
    def more_rows(self) -> int:
        """Rows of the whole table not in `rows`."""
        return max(0, self.shape[0] - len(self.rows))

    def __repr__(self) -> str:
        return str(self)


# -- worker side ---------------------------------------------------------------------------


def table_tree(value: Any, data_limit: int = 0) -> dict[str, Any] | None:
    """The wire form of a DataFrame or Series, or None for anything else (or on failure).

    Args:
        value: Anything the code produced.
        data_limit: Also send every cell (under "data") when they fit in this many JSON
            characters; 0 sends the preview only.
    """
    pandas = sys.modules.get("pandas")
    if pandas is None or not isinstance(value, (pandas.DataFrame, pandas.Series)):
        return None
    try:
        tree = _frame_tree(pandas, value)
    except Exception:  # noqa: BLE001 - an odd frame falls back to its (capped) repr
        return None
    if data_limit > 0:
        try:
            data = frame_data(pandas, value, data_limit)
        except Exception:  # noqa: BLE001 - the preview still crosses
            data = None
        if data is not None:
            tree["data"] = data
    return tree


def frame_data(pandas: Any, value: Any, limit: int) -> dict[str, Any] | None:
    """Every cell of a DataFrame or Series as JSON-safe data, or None when it does not fit.

    None too for a MultiIndex (rows or columns), which plain lists cannot rebuild.

    Args:
        pandas: The pandas module.
        value: A DataFrame or Series.
        limit: Most characters the data may take as JSON.
    """
    series = isinstance(value, pandas.Series)
    frame = value.to_frame() if series else value
    if frame.size * 2 > limit:  # every cell takes at least two characters: no need to try
        return None
    if isinstance(frame.index, pandas.MultiIndex) or isinstance(frame.columns, pandas.MultiIndex):
        return None
    index = frame.index
    plain_index = isinstance(index, pandas.RangeIndex) and index.start == 0 and index.step == 1
    data = {
        "columns": [_label(c) for c in frame.columns],
        "dtypes": [str(t) for t in frame.dtypes],
        "records": [
            [_cell(pandas, v, full=True) for v in row]
            for row in frame.itertuples(index=False, name=None)
        ],
        "index": None if plain_index else [_cell(pandas, i, full=True) for i in index],
        "index_dtype": str(index.dtype),
        "index_name": _label(index.name),
        "name": _label(value.name) if series else None,
    }
    return data if len(json.dumps(data, separators=(",", ":"))) <= limit else None


def _frame_tree(pandas: Any, value: Any) -> dict[str, Any]:
    kind = "Series" if isinstance(value, pandas.Series) else "DataFrame"
    frame = value
    if kind == "Series":
        frame = value.to_frame(name=value.name if value.name is not None else "value")
    rows_total, cols_total = frame.shape
    shown = frame.iloc[:MAX_ROWS, :MAX_COLUMNS]
    index = frame.index
    has_index = not (isinstance(index, pandas.RangeIndex) and index.start == 0 and index.step == 1)
    columns = [_text(c) for c in shown.columns]
    rows = [[_cell(pandas, v) for v in row] for row in shown.itertuples(index=False, name=None)]
    if has_index:
        columns.insert(0, _text(index.name) if index.name is not None else "")
        rows = [[_cell(pandas, i), *row] for i, row in zip(shown.index, rows, strict=True)]
    payload = {
        "kind": kind,
        "shape": [int(rows_total), int(1 if kind == "Series" else cols_total)],
        "columns": columns,
        "dtypes": [_text(t) for t in shown.dtypes],
        "rows": rows,
        "more_columns": max(0, cols_total - MAX_COLUMNS),
        "has_index": has_index,
    }
    return {_TAG: TABLE_TAG, "v": payload, "repr": preview_text(value, kind), "type": kind}


def preview_text(value: Any, kind: str) -> str:
    """What the model reads for a table: shape, dtypes and the first rows, capped.

    Args:
        value: A DataFrame or Series.
        kind: "DataFrame" or "Series".
    """
    if kind == "Series":
        header = f"pandas Series {value.name!r}: {len(value)} rows, dtype {value.dtype}"
    else:
        rows, cols = value.shape
        types = ", ".join(f"{_text(c)} ({t})" for c, t in list(value.dtypes.items())[:50])
        more = f", … {cols - 50} more" if cols > 50 else ""
        header = f"pandas DataFrame: {rows} rows × {cols} columns\ncolumns (dtype): {types}{more}"
    first = value.head(PREVIEW_ROWS)
    if kind == "Series":
        first = first.to_frame()
    head = first.to_string(max_colwidth=40, max_cols=20, line_width=200)
    left = len(value) - min(len(value), PREVIEW_ROWS)
    text = f"{header}\nfirst rows:\n{head}" + (f"\n… {left} more rows" if left else "")
    if len(text) > MAX_PREVIEW_CHARS:
        text = text[:MAX_PREVIEW_CHARS] + f"\n… [{len(text) - MAX_PREVIEW_CHARS} characters cut]"
    return text


def _text(value: Any) -> str:
    text = str(value)
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def _cell(pandas: Any, value: Any, full: bool = False) -> Any:
    """A cell as a JSON-safe scalar: numbers stay numbers, missing is None, anything else as
    text, cut for a preview. `full` (a frame the host rebuilds): uncut, strings as they are,
    times as ISO text (the host casts each column back to its dtype)."""
    # numpy's scalars (a foreign type) have `item`
    item = value.item() if type(value).__module__ == "numpy" and hasattr(value, "item") else value
    if item is None or type(item) is bool or (full and type(item) is str):
        return item
    if type(item) is int:
        return item if item.bit_length() <= 63 else _as_text(item, full)
    if type(item) is float:
        return None if math.isnan(item) else (item if math.isfinite(item) else str(item))
    try:
        if pandas.isna(item) is True:
            return None
    except (TypeError, ValueError):
        pass
    if full and hasattr(item, "isoformat"):  # datetime, date, Timestamp: the host parses it
        return item.isoformat()
    return _as_text(item, full)


def _as_text(value: Any, full: bool) -> str:
    return str(value) if full else _text(value)


def _label(value: Any) -> Any:
    """A column or index name as JSON: plain scalars as they are, anything else as text."""
    if value is None or type(value) in (str, int, bool):
        return value
    return value if type(value) is float and math.isfinite(value) else str(value)


# -- host side -----------------------------------------------------------------------------


def table_from_tree(tree: Any) -> TablePreview | None:
    """Check a table tree from the worker (untrusted) and rebuild it; None if it is not one.

    Args:
        tree: A decoded JSON value, the worker's encoded output.
    """
    if not isinstance(tree, dict) or tree.get(_TAG) != TABLE_TAG:
        return None
    payload, text = tree.get("v"), tree.get("repr")
    if not isinstance(payload, dict) or not isinstance(text, str):
        return None
    columns, rows = payload.get("columns"), payload.get("rows")
    shape, dtypes = payload.get("shape"), payload.get("dtypes")
    width = MAX_COLUMNS + 1
    if not (
        _strings(columns, width)
        and _strings(dtypes, width)
        and isinstance(rows, list)
        and len(rows) <= MAX_ROWS
        and all(isinstance(r, list) and len(r) == len(columns) for r in rows)
        and all(_plain(cell) for row in rows for cell in row)
        and isinstance(shape, list)
        and len(shape) == 2
        and all(type(n) is int and n >= 0 for n in shape)
        and type(payload.get("more_columns", 0)) is int
    ):
        return None
    return TablePreview(
        text[: MAX_PREVIEW_CHARS + 100],
        kind="Series" if payload.get("kind") == "Series" else "DataFrame",
        shape=shape,
        columns=columns,
        dtypes=dtypes,
        rows=rows,
        more_columns=max(0, payload.get("more_columns", 0)),
        has_index=bool(payload.get("has_index")),
    )


def as_table(value: Any) -> TablePreview | None:
    """A `TablePreview` for a table value: one from the sandbox, or a live pandas object
    (from the in-process executor). None for anything else.

    Args:
        value: A step's output or a final answer.
    """
    if isinstance(value, TablePreview):
        return value
    return table_from_tree(table_tree(value))


def _strings(items: Any, limit: int) -> bool:
    return (
        isinstance(items, list)
        and len(items) <= limit
        and all(isinstance(i, str) and len(i) <= MAX_CELL_CHARS for i in items)
    )


def _plain(cell: Any) -> bool:
    if cell is None or type(cell) in (bool, int, float):
        return True
    return isinstance(cell, str) and len(cell) <= MAX_CELL_CHARS
