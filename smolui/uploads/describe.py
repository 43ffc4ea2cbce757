"""Uploads in words: the note for the agent's task and the lines for the chat."""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from smolui.uploads.ingest import AcceptedFile, IngestResult

LINE_CHARS = 160
MAX_COLUMNS_SHOWN = 40


def human_size(size: int) -> str:
    """A byte count as people read it: "812 bytes", "14 KB", "2.5 MB".

    Args:
        size: Number of bytes.
    """
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.0f} KB"
    return f"{size / 1024 / 1024:.1f} MB"


def first_lines(pages: list[str], count: int) -> str:
    """The first non-empty lines of a document, cleaned of control characters and clipped.

    Args:
        pages: The extracted pages.
        count: How many lines.
    """
    lines: list[str] = []
    for page in pages:
        for line in page.splitlines():
            clean = " ".join(_printable(line).split())
            if clean:
                lines.append(clean if len(clean) <= LINE_CHARS else clean[: LINE_CHARS - 1] + "…")
            if len(lines) >= count:
                return "\n".join(lines)
    return "\n".join(lines)


def _printable(text: str) -> str:
    return "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")


def details(item: AcceptedFile) -> str:
    """What, how big, how long: "PDF, 12 pages, 34,567 characters, 1.2 MB".

    Args:
        item: An accepted file.
    """
    parts = [item.label]
    if item.kind == "image":
        parts.append(f"{item.width:,} × {item.height:,} pixels")
    elif item.kind == "table":
        parts += table_details(item)
    elif item.kind == "pdf":
        parts.append(f"{item.pages:,} page{'s' if item.pages != 1 else ''}")
        parts.append(f"{item.chars:,} characters")
    else:
        parts.append(f"{item.chars:,} characters")
        if item.pages and item.pages > 1:
            parts.append(f"{item.pages:,} parts of about 3,000 characters")
    parts.append(human_size(item.size))
    return ", ".join(parts)


def table_details(item: AcceptedFile) -> list[str]:
    """ "120 rows × 5 columns" (and the sheet count of a workbook); empty when unknown.

    Args:
        item: An accepted file of kind "table".
    """
    if item.table is None:  # e.g. a file of a resumed conversation
        return []
    rows, cols = item.table.rows, len(item.table.columns)
    parts = [f"{rows:,} row{'s' if rows != 1 else ''} × {cols:,} column{'s' if cols != 1 else ''}"]
    if len(item.table.sheets) > 1:
        parts.append(f"{len(item.table.sheets)} sheets")
    return parts


def agent_note(result: IngestResult, images_to_model: bool) -> str:
    """The note that goes before the user's text in the agent's task.

    Args:
        result: The ingestion result.
        images_to_model: Whether the images are given to the model with this message.
    """
    if not result.accepted and not result.refused:
        return ""
    lines: list[str] = []
    if result.accepted:
        folder = result.accepted[0].stored_path.parent
        lines.append(
            f"The user attached {len(result.accepted)} file{'s' if len(result.accepted) > 1 else ''} "
            f"to this message, saved read-only in the folder {folder}. Code can open them by path; "
            "the document tools read more of a document."
        )
        lines.extend(_agent_entry(item, images_to_model) for item in result.accepted)
    for item in result.refused:
        lines.append(f'Not attached: "{item.display_name}" ({item.reason}).')
    return "\n".join(lines)


def _agent_entry(item: AcceptedFile, images_to_model: bool) -> str:
    entry = f'- "{item.display_name}": {details(item)}; path: {item.stored_path}.'
    if item.kind == "image":
        entry += (
            " It is shown to you with this message."
            if images_to_model
            else " Open it with code to use it."
        )
    if item.note:
        entry += f" Note: {item.note}"
    if item.kind == "table" and item.table is not None:
        entry += table_entry(item)
    if item.first_lines:
        quoted = "\n".join(f"  > {line}" for line in item.first_lines.splitlines())
        entry += f" First lines:\n{quoted}"
    return entry


def user_lines(result: IngestResult) -> list[str]:
    """One line per file for the chat, in plain words.

    Args:
        result: The ingestion result.
    """
    lines = []
    for item in result.accepted:
        line = f"Attached {item.display_name} ({details(item)})."
        if item.note:
            line += f" {item.note}"
        lines.append(line)
    for item in result.refused:
        lines.append(f"Could not attach {item.display_name}: {item.reason}.")
    return lines


def table_entry(item: AcceptedFile) -> str:
    """The agent's view of a data file: how to load it, its columns and first rows.

    Args:
        item: An accepted file of kind "table" (with its `table` summary).
    """
    summary = item.table
    if summary is None:
        return ""
    path = str(item.stored_path)
    if item.stored_path.suffix.lower() == ".xlsx":
        load = f"pd.read_excel({path!r})"
        if len(summary.sheets) > 1:
            load += f" (sheets: {', '.join(repr(s) for s in summary.sheets[:10])})"
    elif summary.delimiter != ",":
        load = f"pd.read_csv({path!r}, sep={summary.delimiter!r})"
    else:
        load = f"pd.read_csv({path!r})"
    columns = summary.columns[:MAX_COLUMNS_SHOWN]
    more = (
        f", … {len(summary.columns) - len(columns)} more"
        if len(columns) < len(summary.columns)
        else ""
    )
    text = f" Load it with {load}. Columns: {', '.join(repr(c) for c in columns)}{more}."
    if summary.first_rows:
        rows = "\n".join("  > " + " | ".join(row[: len(columns)]) for row in summary.first_rows)
        text += f" First rows:\n  > {' | '.join(columns)}\n{rows}"
    return text
