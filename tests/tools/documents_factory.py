"""Real PDF and DOCX files for the document tests, written with pypdf and python-docx."""

from __future__ import annotations

from pathlib import Path


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(path: Path, pages: list[str]) -> Path:
    """Write a PDF with one page per entry; lines become text lines in Helvetica.

    Args:
        path: Where to write.
        pages: The text of each page.
    """
    from pypdf import PageObject, PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    for text in pages:
        page = PageObject.create_blank_page(width=612, height=792)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        ops = ["BT", "/F1 11 Tf", "14 TL", "60 740 Td"]
        ops += [f"({_escape(line)}) Tj T*" for line in text.split("\n")]
        ops.append("ET")
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode("latin-1"))
        page.replace_contents(stream)
        writer.add_page(page)
    with path.open("wb") as handle:
        writer.write(handle)
    return path


def make_docx(path: Path, paragraphs: list[str], table: list[list[str]] | None = None) -> Path:
    """Write a Word document with paragraphs and an optional table.

    Args:
        path: Where to write.
        paragraphs: Paragraph texts.
        table: Rows of cell texts.
    """
    import docx

    document = docx.Document()
    document.add_heading("Quarterly report", level=1)
    for text in paragraphs:
        document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for row, values in zip(grid.rows, table, strict=True):
            for cell, value in zip(row.cells, values, strict=True):
                cell.text = value
    document.save(str(path))
    return path
