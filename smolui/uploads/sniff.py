"""Content checks: a file's first bytes must match its extension.

A program renamed `report.pdf`, an HTML page saved as `.png` or a PDF renamed `.docx` is
refused here, before any parser sees it.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

HEAD_BYTES = 1024

_EXECUTABLES = (
    (b"\x7fELF", "a Linux program"),
    (b"\xcf\xfa\xed\xfe", "a macOS program"),
    (b"\xce\xfa\xed\xfe", "a macOS program"),
    (b"\xfe\xed\xfa\xce", "a macOS program"),
    (b"\xfe\xed\xfa\xcf", "a macOS program"),
    (b"\xca\xfe\xba\xbe", "a macOS or Java program"),
    (b"\x00asm", "a WebAssembly program"),
)

_SIGNATURES = (
    (b"%PDF-", "a PDF"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"PK\x03\x04", "a zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\xd0\xcf\x11\xe0", "an old Office document (.doc/.xls)"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
)

_EXPECTED = {
    "pdf": "a PDF",
    "docx": "a Word document (.docx)",
    "text": "a text file",
    "csv": "a CSV file",
    "tsv": "a TSV file",
    "xlsx": "an Excel workbook (.xlsx)",
    "png": "a PNG image",
    "jpeg": "a JPEG image",
    "gif": "a GIF image",
    "webp": "a WebP image",
}

_TEXT_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


class ContentMismatch(ValueError):
    """The content of a file does not match its extension; the message says what it is."""


def describe(head: bytes) -> str | None:
    """Name what the first bytes of a file look like, or None when unknown.

    Args:
        head: The first bytes of the file (HEAD_BYTES is enough).
    """
    if head.startswith(b"MZ") and b"\x00" in head[:64]:  # DOS header fields are binary
        return "a Windows program"
    for magic, what in _EXECUTABLES:
        if head.startswith(magic):
            return what
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "a WebP image"
    for magic, what in _SIGNATURES:
        if head.startswith(magic):
            return what
    if head[4:8] == b"ftyp":
        return "a video or HEIC image"
    if head.lstrip().lower().startswith((b"<!doctype html", b"<html", b"<script")):
        return "a web page (HTML)"
    return None


def check_content(path: str | Path, kind: str) -> None:
    """Check that a file's content is of the kind its extension announces.

    Args:
        path: The file to check.
        kind: The expected kind: "pdf", "docx", "text", "csv", "tsv", "xlsx", "png", "jpeg",
            "gif" or "webp".

    Raises:
        ContentMismatch: The content is of another kind (the message names it).
    """
    with open(path, "rb") as handle:
        head = handle.read(HEAD_BYTES)
    if not head:
        raise ContentMismatch("the file is empty (0 bytes)")
    found = describe(head)
    expected = _EXPECTED[kind]
    if _matches(head, kind, found):
        if kind == "docx":
            _check_docx_parts(path)
        if kind == "xlsx":
            _check_xlsx_parts(path)
        return
    if found is None:
        raise ContentMismatch(f"the content is not {expected}")
    raise ContentMismatch(f"the content is {found}, not {expected}; renamed files are refused")


def _matches(head: bytes, kind: str, found: str | None) -> bool:
    if kind in ("text", "csv", "tsv"):
        return _looks_like_text(head, found)
    if kind == "pdf":
        # Readers accept a little junk before the header; programs still start with their magic.
        return found == "a PDF" or (found is None and b"%PDF-" in head)
    if kind in ("docx", "xlsx"):
        return found == "a zip archive"
    return found == _EXPECTED[kind]


def _looks_like_text(head: bytes, found: str | None) -> bool:
    if head.startswith(_TEXT_BOMS):
        return True
    if found is not None and found != "a web page (HTML)":
        return False
    if b"\x00" not in head:
        return True
    # UTF-16 without a byte-order mark: Latin text has a zero in every other byte, never both.
    even, odd = head[0::2].count(0), head[1::2].count(0)
    return min(even, odd) == 0 and max(even, odd) * 3 >= len(head) // 2


def _check_docx_parts(path: str | Path) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        raise ContentMismatch(
            "the file is not a Word document (its zip structure is broken)"
        ) from None
    if "word/document.xml" not in names or "[Content_Types].xml" not in names:
        raise ContentMismatch("the content is a zip archive, not a Word document (.docx)")


def _check_xlsx_parts(path: str | Path) -> None:
    try:
        with zipfile.ZipFile(path) as archive:
            names = {name.lower() for name in archive.namelist()}
    except (zipfile.BadZipFile, OSError, ValueError):
        raise ContentMismatch(
            "the file is not an Excel workbook (its zip structure is broken)"
        ) from None
    if "xl/workbook.xml" not in names or "[content_types].xml" not in names:
        raise ContentMismatch("the content is a zip archive, not an Excel workbook (.xlsx)")
    if any(name.endswith("vbaproject.bin") for name in names):
        raise ContentMismatch(
            "the workbook holds macros (it is a macro-enabled workbook renamed .xlsx); "
            "save it as .xlsx without macros"
        )
