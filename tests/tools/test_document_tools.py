"""Document tools on real PDF, DOCX and text files, confined to their folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from documents_factory import make_docx, make_pdf

from tools.base import ToolExecutionError
from tools.documents import document_tools


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    uploads = tmp_path / "uploads" / "session-1"
    uploads.mkdir(parents=True)
    make_pdf(
        uploads / "report.pdf",
        [
            "Annual report\nRevenue grew by 12 percent.",
            "Costs\nThe main cost was rent (40 percent).",
            "Outlook\nWe expect revenue to grow again next year.",
        ],
    )
    make_docx(
        uploads / "notes.docx",
        ["The meeting starts at nine.", "Bring the budget figures."],
        table=[["Item", "Amount"], ["Laptops", "4200 EUR"]],
    )
    german = "Die Straße führt über die Brücke zum Rathaus. Grüße aus München und Köln.\n"
    (uploads / "grüße.txt").write_bytes((german * 20).encode("latin-1"))
    (tmp_path / "secret.txt").write_text("top secret password")
    return uploads


@pytest.fixture
def tools(folder: Path) -> dict:
    return {t.name: t for t in document_tools(folder)}


def test_list_documents_shows_every_file(tools: dict) -> None:
    listing = tools["list_documents"]()
    assert "3 document(s)" in listing
    assert "report.pdf (PDF" in listing
    assert "notes.docx (Word document" in listing
    assert "grüße.txt (text" in listing


def test_list_documents_empty_folder(tmp_path: Path) -> None:
    listing = document_tools(tmp_path)[0]()
    assert listing == "No documents have been uploaded yet."


def test_read_pdf_page_range(tools: dict) -> None:
    text = tools["read_document"](path="report.pdf", start_page=2, end_page=2)
    assert "--- page 2 ---" in text and "rent (40 percent)" in text
    assert "Revenue grew" not in text and "Outlook" not in text
    assert "call read_document with start_page=3" in text


def test_read_whole_pdf(tools: dict) -> None:
    text = tools["read_document"](path="report.pdf")
    assert [f"--- page {n} ---" in text for n in (1, 2, 3)] == [True, True, True]
    assert "more page" not in text


def test_read_docx_paragraphs_and_table(tools: dict) -> None:
    text = tools["read_document"](path="notes.docx")
    assert "The meeting starts at nine." in text
    assert "Laptops" in text and "4200 EUR" in text


def test_read_text_file_with_detected_encoding(tools: dict) -> None:
    assert "Grüße aus München und Köln." in tools["read_document"](path="grüße.txt")


def test_search_returns_passages_with_page_numbers(tools: dict) -> None:
    result = tools["search_document"](path="report.pdf", query="revenue")
    assert "2 match(es)" in result
    assert "[page 1]" in result and "[page 3]" in result
    assert "**Revenue**" in result


def test_search_spans_line_breaks_and_reports_no_match(tools: dict) -> None:
    assert "[page 3]" in tools["search_document"](path="report.pdf", query="grow  again")
    assert "No match" in tools["search_document"](path="report.pdf", query="dividend")


def test_search_in_docx_table(tools: dict) -> None:
    result = tools["search_document"](path="notes.docx", query="4200 eur")
    assert "1 match(es)" in result and "[part 1]" in result


def test_300_page_pdf_is_paged_and_searchable(tmp_path: Path) -> None:
    pages = [f"Page {n} of the big manual.\nSection {n} text." for n in range(1, 301)]
    pages[286] += "\nThe secret ingredient is cardamom."
    make_pdf(tmp_path / "manual.pdf", pages)
    tools = {t.name: t for t in document_tools(tmp_path)}
    reader = tools["read_document"]
    reader.max_characters = 2000
    first = reader(path="manual.pdf")
    assert "--- page 1 ---" in first and "--- page 300 ---" not in first
    shown = first.split("more page(s); call read_document with start_page=")[1].rstrip("]")
    assert int(shown) > 2
    middle = reader(path="manual.pdf", start_page=250, end_page=252)
    assert "Section 250 text." in middle and "Section 252 text." in middle
    assert "Section 253 text." not in middle and "Section 249 text." not in middle
    found = tools["search_document"](path="manual.pdf", query="cardamom")
    assert "1 match(es)" in found and "[page 287]" in found


@pytest.mark.parametrize("name", ["../secret.txt", "../../secret.txt", "sub/../../secret.txt"])
def test_relative_traversal_is_refused(tools: dict, name: str) -> None:
    with pytest.raises(ToolExecutionError, match="outside the documents folder"):
        tools["read_document"](path=name)


def test_absolute_path_outside_is_refused(tools: dict, folder: Path) -> None:
    for name in (str(folder.parent.parent / "secret.txt"), "/etc/passwd"):
        with pytest.raises(ToolExecutionError, match="outside the documents folder"):
            tools["search_document"](path=name, query="password")


def test_absolute_path_inside_is_accepted(tools: dict, folder: Path) -> None:
    assert "rent" in tools["read_document"](path=str(folder / "report.pdf"), start_page=2)


def test_symlink_leading_outside_is_refused_and_hidden(tools: dict, folder: Path) -> None:
    os.symlink(folder.parent.parent / "secret.txt", folder / "innocent.txt")
    with pytest.raises(ToolExecutionError, match="outside the documents folder"):
        tools["read_document"](path="innocent.txt")
    assert "innocent" not in tools["list_documents"]()


def test_missing_document_lists_available_ones(tools: dict) -> None:
    with pytest.raises(ToolExecutionError, match="no document named 'nope.pdf'.*report.pdf"):
        tools["read_document"](path="nope.pdf")


def test_bad_page_numbers_are_readable(tools: dict) -> None:
    with pytest.raises(ToolExecutionError, match="has 3 page"):
        tools["read_document"](path="report.pdf", start_page=9)
    with pytest.raises(ToolExecutionError, match="before start_page"):
        tools["read_document"](path="report.pdf", start_page=3, end_page=1)


def test_unreadable_file_is_a_readable_error(tools: dict, folder: Path) -> None:
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    with pytest.raises(ToolExecutionError, match="Could not read 'broken.pdf'"):
        tools["read_document"](path="broken.pdf")


def test_parsed_documents_are_cached(tools: dict, folder: Path) -> None:
    reader = tools["read_document"]
    reader(path="report.pdf")
    cached = dict(reader.folder._cache)
    reader(path="report.pdf", start_page=3)
    assert dict(reader.folder._cache) == cached
    make_pdf(folder / "report.pdf", ["Rewritten with new text"])
    assert "Rewritten" in reader(path="report.pdf")
