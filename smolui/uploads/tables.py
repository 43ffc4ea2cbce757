"""Data files (CSV, TSV, XLSX) summarized for the agent: columns, row count, first rows.

The summary lets the model see what a file holds and makes `pd.read_csv(path)` the obvious
next step; the code reads the file itself in the sandbox. Reading is bounded: a time
budget, the zip limits of Word documents for workbooks (an XLSX is a zip), and
openpyxl in read-only mode, which never runs macros (macro-enabled files are refused
before this, by extension and by content in `smolui.uploads.sniff`).
"""

from __future__ import annotations

import csv
import io
import time
from dataclasses import dataclass, field
from pathlib import Path

from tools.document_reader import check_zip_limits
from tools.text_decoding import DocumentError, decode_text

PREVIEW_ROWS = 5
MAX_COLUMNS_SHOWN = 40
MAX_CELL_CHARS = 60
_SNIFF_CHARS = 64 * 1024


class TableError(ValueError):
    """A data file cannot be read; the message says why in plain words."""


@dataclass
class TableSummary:
    """What a data file holds.

    Args:
        columns: The header row's names (of the first sheet for a workbook).
        rows: Data rows, header excluded (of the first sheet for a workbook).
        first_rows: The first data rows, as text cells.
        sheets: Sheet names of a workbook (empty for CSV/TSV).
        delimiter: The CSV field separator found.
        encoding: The text encoding of a CSV/TSV file.
        note: What the reader should know (rows counted only partly, more sheets), or None.
    """

    columns: list[str]
    rows: int
    first_rows: list[list[str]] = field(default_factory=list)
    sheets: list[str] = field(default_factory=list)
    delimiter: str = ","
    encoding: str = "utf-8"
    note: str | None = None


def summarize_table(path: str | Path, kind: str, time_budget_s: float = 10.0) -> TableSummary:
    """Read a CSV, TSV or XLSX file's header, row count and first rows.

    Args:
        path: The stored file.
        kind: "csv", "tsv" or "xlsx".
        time_budget_s: Seconds of reading before the row count stops (and says so).

    Raises:
        TableError: The file cannot be read as that kind of table.
    """
    deadline = time.monotonic() + time_budget_s
    if kind == "xlsx":
        return _summarize_workbook(Path(path), deadline)
    return _summarize_delimited(Path(path), "\t" if kind == "tsv" else None, deadline)


def _summarize_delimited(path: Path, delimiter: str | None, deadline: float) -> TableSummary:
    try:
        text, encoding = decode_text(path.read_bytes(), path.name)
    except DocumentError as error:
        raise TableError(str(error)) from None
    delimiter = delimiter or _sniff_delimiter(text[:_SNIFF_CHARS])
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader, None)
        if header is None:
            raise TableError("the file holds no rows")
        first, rows, note = [], 0, None
        for record in reader:
            if not any(cell.strip() for cell in record):
                continue  # blank lines are not rows for pandas either
            rows += 1
            if len(first) < PREVIEW_ROWS:
                first.append([_cell(c) for c in record])
            if rows % 10_000 == 0 and time.monotonic() > deadline:
                note = f"The rows were counted only up to {rows:,} (time limit)."
                break
    except csv.Error as error:
        raise TableError(f"the file is not valid CSV ({error})") from None
    return TableSummary(
        columns=[_cell(c) for c in header], rows=rows, first_rows=first,
        delimiter=delimiter, encoding=encoding, note=note,
    )  # fmt: skip


def _sniff_delimiter(sample: str) -> str:
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def _summarize_workbook(path: Path, deadline: float) -> TableSummary:
    check_workbook(path)
    from openpyxl import load_workbook

    try:
        book = load_workbook(path, read_only=True, data_only=True, keep_links=False)
    except Exception as error:  # noqa: BLE001 - openpyxl raises many kinds for broken files
        raise TableError(f"the workbook cannot be read ({type(error).__name__})") from None
    try:
        sheets = list(book.sheetnames)
        if not sheets:
            raise TableError("the workbook has no sheets")
        summary = _summarize_sheet(book[sheets[0]], deadline)
    finally:
        book.close()
    summary.sheets = sheets
    if len(sheets) > 1:
        more = f"{len(sheets)} sheets; the summary is of the first, {sheets[0]!r}."
        summary.note = f"{summary.note} {more}" if summary.note else more
    return summary


def _summarize_sheet(sheet: object, deadline: float) -> TableSummary:
    rows_iter = sheet.iter_rows(values_only=True)  # type: ignore[attr-defined]
    header: list[str] | None = None
    first: list[list[str]] = []
    rows, note = 0, None
    for values in rows_iter:
        if not any(v is not None and str(v).strip() for v in values):
            continue
        if header is None:
            header = [_cell(v) for v in values]
            continue
        rows += 1
        if len(first) < PREVIEW_ROWS:
            first.append([_cell(v) for v in values])
        if rows % 2_000 == 0 and time.monotonic() > deadline:
            note = f"The rows were counted only up to {rows:,} (time limit)."
            break
    if header is None:
        raise TableError("the first sheet is empty")
    return TableSummary(columns=header, rows=rows, first_rows=first, note=note)


def check_workbook(path: str | Path) -> None:
    """Refuse a workbook whose zip would unpack too large, too many or too compressed parts
    (the limits of Word documents; its parts and macros were checked with its content).

    Args:
        path: The file to check.

    Raises:
        TableError: With the reason in plain words.
    """
    try:
        check_zip_limits(path)
    except DocumentError as error:
        raise TableError(str(error).replace("Word document", "workbook")) from None


def _cell(value: object) -> str:
    text = "" if value is None else " ".join(str(value).split())
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"
