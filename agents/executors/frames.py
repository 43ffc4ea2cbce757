"""Host side of a table given to `final_answer`: a pandas DataFrame (or Series) rebuilt from
the cells the worker sent as data (`previews.frame_data`), so `agent.run` returns what
smolagents returns. Nothing is unpickled: the host checks the plain lists it received,
builds a new frame from them and casts each column back to its dtype.
"""

from __future__ import annotations

import json
import re
from typing import Any

_DTYPE = re.compile(r"[A-Za-z0-9_\[\], :/+-]{1,64}")  # "int64", "datetime64[ns, UTC]", ...


def frame_from_tree(tree: Any, limit: int) -> Any | None:
    """The DataFrame or Series a table tree's "data" describes; None when it carries none,
    is malformed or over `limit`, or pandas is missing (the caller keeps the preview).

    Args:
        tree: The worker's encoded output (untrusted), a table tree.
        limit: Most characters the data may take as JSON.
    """
    data = tree.get("data") if isinstance(tree, dict) else None
    if not _well_formed(data) or len(json.dumps(data, separators=(",", ":"))) > limit:
        return None
    try:
        import pandas
    except ImportError:
        return None
    try:
        return _build(pandas, data, series=tree.get("type") == "Series")
    except (TypeError, ValueError):  # pandas refused the lists: keep the preview
        return None


def _build(pandas: Any, data: dict[str, Any], series: bool) -> Any:
    frame = pandas.DataFrame(data["records"], columns=pandas.Index(data["columns"]))
    for position, dtype in enumerate(data["dtypes"]):
        frame.isetitem(position, _cast(frame.iloc[:, position], dtype))
    if data["index"] is not None:
        index = _cast(pandas.Series(data["index"], dtype=object), data["index_dtype"])
        frame.index = pandas.Index(index, name=data["index_name"])
    elif data["index_name"] is not None:
        frame.index.name = data["index_name"]
    if series:
        column = frame.iloc[:, 0]
        column.name = data["name"]
        return column
    return frame


def _cast(column: Any, dtype: str) -> Any:
    """The column as `dtype` (numbers, times, categories, text); as received if pandas cannot
    (a dtype it cannot rebuild from plain values, e.g. a period or an extension type)."""
    if str(column.dtype) == dtype:
        return column
    try:
        return column.astype(dtype)
    except (TypeError, ValueError, OverflowError, ImportError):
        return column


def _well_formed(data: Any) -> bool:
    if not isinstance(data, dict):
        return False
    columns, dtypes, records = data.get("columns"), data.get("dtypes"), data.get("records")
    index = data.get("index")
    if not (isinstance(columns, list) and isinstance(dtypes, list) and isinstance(records, list)):
        return False
    width = len(columns)
    return (
        len(dtypes) == width
        and all(isinstance(t, str) and _DTYPE.fullmatch(t) for t in dtypes)
        and isinstance(data.get("index_dtype"), str)
        and _DTYPE.fullmatch(data["index_dtype"]) is not None
        and all(_scalar(c) for c in columns)
        and _scalar(data.get("index_name"))
        and _scalar(data.get("name"))
        and all(isinstance(r, list) and len(r) == width for r in records)
        and all(_scalar(cell) for row in records for cell in row)
        and (index is None or (isinstance(index, list) and len(index) == len(records)))
        and all(_scalar(label) for label in index or [])
    )


def _scalar(value: Any) -> bool:
    return value is None or type(value) in (bool, int, float, str)
