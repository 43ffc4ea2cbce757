"""read_document on real files written by pypdf, python-docx and Pillow, normal and hostile."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.samples import report_pages, write_docx, write_pdf
from tools.document_reader import (
    CHUNK_CHARS,
    DocumentError,
    check_zip_limits,
    decode_text,
    read_document,
)

FRENCH = "Résumé du café à Zürich: naïve façade, déjà vu.\nDeuxième ligne, très élégante.\n"


@pytest.fixture(scope="module")
def long_pdf(tmp_path_factory) -> Path:
    return write_pdf(
        tmp_path_factory.mktemp("pdf") / "long.pdf", report_pages(2000, lines_per_page=3)
    )


def test_pdf_text_is_read_page_by_page(tmp_path):
    path = write_pdf(tmp_path / "a.pdf", ["First page (intro)\nsecond line", "Second page: café"])
    document = read_document(path)
    assert document.kind == "pdf"
    assert document.total_pages == 2
    assert "First page (intro)" in document.pages[0] and "second line" in document.pages[0]
    assert "Second page: café" in document.pages[1]
    assert document.note is None
    assert document.chars == sum(len(page) for page in document.pages)


def test_2000_page_pdf_is_capped(long_pdf):
    document = read_document(long_pdf, max_pages=40)
    assert document.total_pages == 2000
    assert len(document.pages) == 40
    assert "Page 40 of 2000" in document.pages[-1]
    assert "first 40 of 2,000 pages" in document.note and "page limit" in document.note


def test_time_budget_stops_between_pages_but_reads_the_first(long_pdf):
    document = read_document(long_pdf, max_pages=500, time_budget_s=0.0)
    assert len(document.pages) == 1
    assert "Page 1 of 2000" in document.pages[0]
    assert "time limit" in document.note


def test_encrypted_pdf_gets_a_note_instead_of_text(tmp_path):
    path = write_pdf(tmp_path / "locked.pdf", ["the secret plan"], password="hunter2")
    document = read_document(path)
    assert document.pages == []
    assert "password-protected" in document.note


def test_pdf_encrypted_with_an_empty_password_is_read(tmp_path):
    path = write_pdf(tmp_path / "perms.pdf", ["open for reading"], password="")
    document = read_document(path)
    assert "open for reading" in document.pages[0]


def test_image_only_pdf_says_it_is_a_scan(tmp_path):
    from PIL import Image

    path = tmp_path / "scan.pdf"
    Image.new("RGB", (300, 200), "white").save(path)
    document = read_document(path)
    assert document.total_pages == 1
    assert "only images" in document.note and "OCR" in document.note


def test_blank_and_pageless_pdfs_say_so(tmp_path):
    assert "no text" in read_document(write_pdf(tmp_path / "blank.pdf", [""])).note
    assert "no pages" in read_document(write_pdf(tmp_path / "none.pdf", [])).note


@pytest.mark.parametrize("fraction", [0.2, 0.6, 0.95])
def test_truncated_pdf_raises_a_plain_error(tmp_path, fraction):
    whole = write_pdf(tmp_path / "whole.pdf", report_pages(5, lines_per_page=5)).read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(whole[: int(len(whole) * fraction)])
    with pytest.raises(DocumentError, match="damaged or incomplete"):
        read_document(cut)


def test_zero_byte_and_missing_files(tmp_path):
    (tmp_path / "empty.pdf").write_bytes(b"")
    with pytest.raises(DocumentError, match="empty"):
        read_document(tmp_path / "empty.pdf")
    with pytest.raises(DocumentError, match="no such file"):
        read_document(tmp_path / "missing.txt")


def test_docx_paragraphs_and_tables_in_order(tmp_path):
    path = write_docx(
        tmp_path / "memo.docx",
        ["Quarterly memo", "Sales rose in March.", "Costs fell."],
        tables=[[["Region", "Sales"], ["North", "120"], ["South", "95"]]],
    )
    document = read_document(path)
    assert document.kind == "docx"
    text = document.text
    assert text.index("Quarterly memo") < text.index("Sales rose") < text.index("Region | Sales")
    assert "North | 120" in text and "South | 95" in text


def test_long_docx_is_chunked_and_capped(tmp_path):
    paragraphs = [f"Paragraph {n}: " + "lorem ipsum dolor sit amet " * 10 for n in range(400)]
    path = write_docx(tmp_path / "long.docx", paragraphs)
    whole = read_document(path)
    assert whole.total_pages == len(whole.pages) > 10
    assert all(len(page) <= CHUNK_CHARS for page in whole.pages)
    assert "Paragraph 399" in whole.pages[-1]
    capped = read_document(path, max_pages=3)
    assert len(capped.pages) == 3 and "page limit" in capped.note


def test_docx_that_is_not_a_zip(tmp_path):
    path = tmp_path / "fake.docx"
    path.write_text("just some text pretending to be Word")
    with pytest.raises(DocumentError, match="not a zip"):
        read_document(path)


def test_docx_zip_bomb_is_refused_before_parsing(tmp_path):
    path = write_docx(tmp_path / "bomb.docx", ["Looks normal"])
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/media/filler.bin", b"\0" * (40 * 1024 * 1024))
    assert path.stat().st_size < 1024 * 1024
    with pytest.raises(DocumentError, match="zip bomb"):
        check_zip_limits(path)
    with pytest.raises(DocumentError, match="zip bomb"):
        read_document(path)


def test_docx_with_a_huge_declared_xml_part_is_refused(tmp_path, monkeypatch):
    import tools.document_reader as reader

    monkeypatch.setattr(reader, "DOCX_MAX_XML", 10_000)
    path = write_docx(tmp_path / "big.docx", ["word " * 5000])
    with pytest.raises(DocumentError, match="too large"):
        read_document(path)


def test_damaged_docx_zip_raises(tmp_path):
    path = tmp_path / "broken.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<not really/>")
        archive.writestr("word/document.xml", "<w:document")
    with pytest.raises(DocumentError, match="damaged"):
        read_document(path)


@pytest.mark.parametrize(
    ("encoding", "expected"), [("utf-16", "utf-16"), ("latin-1", "latin-1"), ("utf-8", "utf-8")]
)
def test_text_encodings_are_detected(tmp_path, encoding, expected):
    path = tmp_path / "notes.txt"
    path.write_bytes(FRENCH.encode(encoding))
    document = read_document(path)
    assert document.kind == "text"
    assert document.encoding == expected
    assert document.pages == [FRENCH.rstrip("\n")]


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("Привет, как дела? Это тестовый текст на русском языке.", "cp1251"),
        ("Zażółć gęślą jaźń, to jest tekst.", "cp1250"),
        ("Price: 5€ — “quoted” text", "cp1252"),
        ("café", "latin-1"),
        ("Ça va?", "latin-1"),
        ("über", "latin-1"),
        ("Zürich", "latin-1"),
        ("Müller & Söhne", "cp1252"),
        (
            "你好，世界。这是一个测试文件，用来检查编码的识别是否正确。我们今天去公园散步，天气很好。",
            "gbk",
        ),
        ("こんにちは、世界。", "shift_jis"),
        ("Γειά σου κόσμε, αυτό είναι ένα κείμενο.", "cp1253"),
    ],
)
def test_decode_text_other_code_pages(text, encoding):
    decoded, _ = decode_text(text.encode(encoding))
    assert decoded == text


def test_utf8_cut_inside_a_character_only_when_the_file_was_cut():
    data = "naïve".encode()
    assert decode_text(data[:3], cut=True) == ("na", "utf-8")
    assert decode_text(b"caf\xe9")[0] == "café"  # a whole Latin-1 file, not a cut UTF-8 one


def test_binary_file_is_not_text(tmp_path):
    import random

    path = tmp_path / "noise.txt"
    path.write_bytes(random.Random(7).randbytes(4000))
    with pytest.raises(DocumentError, match="does not look like text"):
        read_document(path)


def test_long_text_is_chunked_at_line_ends_and_capped(tmp_path):
    lines = [f"line {n:05d} " + "x" * 60 for n in range(3000)]
    path = tmp_path / "log.md"
    path.write_text("\n".join(lines))
    document = read_document(path)
    assert all(len(page) <= CHUNK_CHARS for page in document.pages)
    assert document.pages[0].startswith("line 00000") and document.pages[1].startswith("line ")
    assert "".join(document.pages).count("line ") == 3000
    capped = read_document(path, max_pages=2)
    assert len(capped.pages) == 2 and "page limit" in capped.note
