"""Build real sample documents (PDF with a text layer, DOCX with paragraphs and tables).

Used by the tests and `bench/uploads.py` (it also made the bundled example document); the
files are written with pypdf and python-docx, the same libraries that read them back.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

_PAGE_WIDTH, _PAGE_HEIGHT = 612, 792  # US Letter, in points


def write_pdf(path: str | os.PathLike, pages: Sequence[str], password: str | None = None) -> Path:
    """Write a PDF whose pages hold the given text (Helvetica, one PDF line per text line).

    Args:
        path: Where to write.
        pages: The text of each page; characters outside Latin-1 become "?".
        password: Encrypt with this user password (RC4, which needs no extra package).

    Returns:
        The path written.
    """
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
            NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
        }
    )
    writer = PdfWriter()
    for text in pages:
        page = writer.add_blank_page(_PAGE_WIDTH, _PAGE_HEIGHT)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        stream = DecodedStreamObject()
        stream.set_data(_text_operators(text))
        page.replace_contents(stream)
    if password is not None:
        writer.encrypt(
            user_password=password, owner_password=password + "-owner", algorithm="RC4-128"
        )
    with open(path, "wb") as handle:
        writer.write(handle)
    return Path(path)


def _text_operators(text: str) -> bytes:
    """A content stream that shows each line of `text`, top to bottom."""
    commands = [b"BT /F1 11 Tf 14 TL 56 740 Td"]
    for line in text.splitlines():
        escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        commands.append(b"(" + escaped.encode("cp1252", "replace") + b") Tj T*")
    commands.append(b"ET")
    return b"\n".join(commands)


def write_docx(
    path: str | os.PathLike,
    paragraphs: Sequence[str],
    tables: Sequence[Sequence[Sequence[str]]] = (),
    images: Sequence[str | os.PathLike] = (),
) -> Path:
    """Write a Word document: a heading, the paragraphs, then each table and image.

    Args:
        path: Where to write.
        paragraphs: Body paragraphs; the first one is written as a heading.
        tables: Tables as rows of cell texts.
        images: Picture files to embed after the tables.

    Returns:
        The path written.
    """
    import docx
    from docx.shared import Inches

    document = docx.Document()
    for index, text in enumerate(paragraphs):
        if index == 0:
            document.add_heading(text, level=1)
        else:
            document.add_paragraph(text)
    for rows in tables:
        table = document.add_table(rows=len(rows), cols=max(len(row) for row in rows))
        for row, cells in zip(table.rows, rows, strict=False):
            for cell, value in zip(row.cells, cells, strict=False):
                cell.text = value
    for image in images:
        document.add_picture(str(image), width=Inches(4))
    document.save(str(path))
    return Path(path)


def report_pages(count: int, lines_per_page: int = 40) -> list[str]:
    """Plausible report text, `count` pages of numbered lines (for benchmarks and tests).

    Args:
        count: Number of pages.
        lines_per_page: Lines on each page.
    """
    words = ["the", "quarterly", "figures", "show", "steady", "growth", "in", "every", "region"]
    words += ["while", "costs", "stayed", "flat"]
    pages = []
    for number in range(1, count + 1):
        lines = [f"Page {number} of {count}: annual report"]
        for line in range(1, lines_per_page):
            shift = (number + line) % len(words)
            lines.append(f"{line:02d}. " + " ".join(words[shift:] + words[:shift]))
        pages.append("\n".join(lines))
    return pages


def write_xlsx(path: str | os.PathLike, rows: Sequence[Sequence[object]]) -> Path:
    """Write an Excel workbook with one sheet holding `rows` (the first row is the header).

    Args:
        path: Where to write.
        rows: Cell values, row by row.

    Returns:
        The path written.
    """
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(list(row))
    book.save(str(path))
    return Path(path)
