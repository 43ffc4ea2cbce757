"""Text extraction from PDF, Word (.docx) and plain-text files, with limits.

Shared by the upload ingestion (`smolui.uploads`) and the document tools. Every reader is
bounded: a page cap, a time budget checked between pages, a zip-bomb check before a DOCX is
opened, and a byte cap on text files. Problems the user can act on raise `DocumentError`
with a plain message; a readable file with no usable text (encrypted, scanned, empty) gets a
`note` instead.
"""

from __future__ import annotations

import logging
import os
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from tools.text_decoding import DocumentError, decode_text

logger = logging.getLogger(__name__)

CHUNK_CHARS = 3000
"""Size of the "pages" that DOCX and text files are cut into."""

DOCX_MAX_UNCOMPRESSED = 128 * 1024 * 1024
"""Largest total uncompressed size a DOCX may declare."""

DOCX_MAX_XML = 64 * 1024 * 1024
"""Largest uncompressed size of one XML part (python-docx parses each one fully)."""

DOCX_MAX_RATIO = 100
"""Largest compression ratio of a large DOCX member; real documents stay far below it."""

DOCX_MAX_MEMBERS = 5000

_TEXT_BYTES_PER_PAGE = CHUNK_CHARS * 4  # worst case of UTF-8 bytes per character


@dataclass
class DocumentText:
    """The text of a document, split into pages.

    Args:
        path: The file that was read.
        kind: "pdf", "docx" or "text".
        pages: PDF: the text of each page read; DOCX and text: chunks of about 3,000 characters.
        total_pages: Pages in the whole document (may exceed `len(pages)` when capped).
        note: What the reader should know (capped, encrypted, scanned, empty), or None.
        encoding: The detected encoding of a text file, else None.
    """

    path: str
    kind: str
    pages: list[str] = field(default_factory=list)
    total_pages: int = 0
    note: str | None = None
    encoding: str | None = None

    @property
    def chars(self) -> int:
        """Number of characters extracted."""
        return sum(len(page) for page in self.pages)

    @property
    def text(self) -> str:
        """All extracted text, pages separated by blank lines."""
        return "\n\n".join(self.pages)


def read_document(
    path: str | os.PathLike, max_pages: int = 500, time_budget_s: float = 10.0
) -> DocumentText:
    """Extract the text of a PDF, DOCX or text file.

    The kind comes from the extension (.pdf, .docx, anything else is text); a file whose
    content is clearly of another kind is read as that kind.

    Args:
        path: The file to read.
        max_pages: Most pages (or chunks) to extract.
        time_budget_s: Seconds after which extraction stops (checked between pages).

    Raises:
        DocumentError: The file is missing, damaged, too large or not text.
    """
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            head = handle.read(8)
    except FileNotFoundError:
        raise DocumentError(f"{path.name}: no such file.") from None
    except IsADirectoryError:
        raise DocumentError(f"{path.name} is a folder, not a document.") from None
    except OSError as exc:
        raise DocumentError(f"{path.name} cannot be opened ({exc.strerror}).") from None
    if not head:
        raise DocumentError(f"{path.name} is empty (0 bytes).")
    deadline = time.monotonic() + time_budget_s
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        raise DocumentError(
            f"{path.name} is a spreadsheet; read it with code: pandas.read_excel(path)."
        )
    kind = _kind_of(path, head)
    if kind == "pdf":
        return _read_pdf(path, max(1, max_pages), deadline)
    if kind == "docx":
        return _read_docx(path, max(1, max_pages), deadline)
    return _read_text(path, max(1, max_pages))


def _kind_of(path: Path, head: bytes) -> str:
    suffix = path.suffix.lower()
    if head.startswith(b"%PDF"):
        return "pdf"
    if suffix == ".pdf":
        return "pdf"  # junk before the header is allowed by readers; pypdf decides
    if suffix == ".docx":
        return "docx"
    return "text"


# --- PDF ---------------------------------------------------------------------------------


def _read_pdf(path: Path, max_pages: int, deadline: float) -> DocumentText:
    from pypdf import PdfReader

    result = DocumentText(path=str(path), kind="pdf")
    try:
        with open(path, "rb") as handle:
            reader = PdfReader(handle, strict=False)
            if reader.is_encrypted and not _unlock(reader):
                result.note = "This PDF is password-protected, so its text cannot be read."
                return result
            result.total_pages = len(reader.pages)
            notes, saw_images = _extract_pages(reader, result, max_pages, deadline)
    except DocumentError:
        raise
    except Exception as exc:  # pypdf raises many types on damaged files
        logger.debug("pypdf failed on %s", path, exc_info=True)
        raise DocumentError(
            f"{path.name} could not be read as a PDF: the file looks damaged or incomplete "
            f"({type(exc).__name__})."
        ) from None
    if not _has_eof_marker(path):
        notes.insert(
            0, "The file seems incomplete (no end-of-file marker); some pages may be missing."
        )
    if result.total_pages == 0:
        notes.append("This PDF has no pages.")
    elif not any(page.strip() for page in result.pages):
        notes.append(_no_text_note(saw_images))
    result.note = " ".join(notes) or None
    return result


def _unlock(reader) -> bool:
    """Open PDFs that are encrypted with an empty user password (permissions only)."""
    try:
        return bool(reader.decrypt(""))
    except Exception:  # unsupported algorithm or missing crypto backend
        logger.debug("PDF decryption failed", exc_info=True)
        return False


def _extract_pages(
    reader, result: DocumentText, max_pages: int, deadline: float
) -> tuple[list[str], bool]:
    notes: list[str] = []
    saw_images = False
    for index, page in enumerate(reader.pages):
        if index >= max_pages:
            notes.append(
                f"Only the first {max_pages:,} of {result.total_pages:,} pages were read (page limit)."
            )
            break
        if index and time.monotonic() > deadline:  # the first page is always read
            notes.append(
                f"Only the first {index:,} of {result.total_pages:,} pages were read (time limit)."
            )
            break
        try:
            text = page.extract_text() or ""
        except Exception as exc:
            logger.debug("page %d of %s failed", index + 1, result.path, exc_info=True)
            text = ""
            notes.append(f"Page {index + 1} could not be read ({type(exc).__name__}).")
        if not text.strip() and not saw_images:
            saw_images = _page_has_images(page)
        result.pages.append(text)
    return notes, saw_images


def _page_has_images(page) -> bool:
    try:
        xobjects = page.get("/Resources", {}).get_object().get("/XObject")
        if xobjects is None:
            return False
        return any(
            xobjects[name].get_object().get("/Subtype") == "/Image"
            for name in xobjects.get_object()
        )
    except Exception:
        return False


def _no_text_note(saw_images: bool) -> str:
    if saw_images:
        return (
            "This PDF contains only images (probably a scan), so there is no text to read; "
            "text recognition (OCR) is not available."
        )
    return "This PDF contains no text."


def _has_eof_marker(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        handle.seek(max(0, size - 2048))
        return b"%%EOF" in handle.read()


# --- DOCX --------------------------------------------------------------------------------


def check_zip_limits(path: str | os.PathLike) -> None:
    """Refuse a zip (DOCX) whose declared contents are too large, too many or too compressed.

    Python's zipfile stops at the declared size of each member, so checking the declared
    sizes bounds what python-docx can inflate.

    Args:
        path: The zip file to check.

    Raises:
        DocumentError: Not a zip, or over a limit.
    """
    name = Path(path).name
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        raise DocumentError(
            f"{name} is not a valid Word document (it is not a zip archive)."
        ) from None
    if len(members) > DOCX_MAX_MEMBERS:
        raise DocumentError(
            f"{name} holds {len(members):,} parts; that is too many for a Word document."
        )
    total = sum(member.file_size for member in members)
    if total > DOCX_MAX_UNCOMPRESSED:
        raise DocumentError(
            f"{name} would unpack to {total / 2**20:,.0f} MB; that is too large to read."
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > 1024 * 1024 and ratio > DOCX_MAX_RATIO:
            raise DocumentError(
                f"{name} looks like a zip bomb ({member.filename} is compressed {ratio:,.0f} to 1)."
            )
        if member.filename.endswith(".xml") and member.file_size > DOCX_MAX_XML:
            raise DocumentError(
                f"{name} has a part of {member.file_size / 2**20:,.0f} MB ({member.filename}); that is too large to read."
            )


def _read_docx(path: Path, max_pages: int, deadline: float) -> DocumentText:
    check_zip_limits(path)
    try:
        import docx

        document = docx.Document(str(path))
    except Exception as exc:  # python-docx raises KeyError, ValueError, lxml errors...
        logger.debug("python-docx failed on %s", path, exc_info=True)
        raise DocumentError(
            f"{path.name} could not be read as a Word document: it looks damaged ({type(exc).__name__})."
        ) from None
    chunker = _Chunker(max_pages)
    stopped = None
    for block in _docx_blocks(document):
        chunker.add(block)
        if chunker.full:
            stopped = f"Only the first {max_pages:,} pages of about {CHUNK_CHARS:,} characters were read (page limit)."
            break
        if time.monotonic() > deadline:
            stopped = "The document was read only in part (time limit)."
            break
    pages = chunker.finish()
    result = DocumentText(
        path=str(path), kind="docx", pages=pages, total_pages=len(pages), note=stopped
    )
    if not any(page.strip() for page in pages):
        result.note = "This Word document contains no text."
    return result


def _docx_blocks(document):
    """Yield the text of each paragraph and each table row, in document order."""
    from docx.table import Table

    for item in document.iter_inner_content():
        if isinstance(item, Table):
            yield from _table_rows(item)
        else:
            yield item.text


def _table_rows(table):
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:
            if id(cell._tc) in seen:  # a merged cell repeats across the columns it spans
                continue
            seen.add(id(cell._tc))
            cells.append(" ".join(cell.text.split()))
        yield " | ".join(cells)


class _Chunker:
    """Join lines into chunks of about CHUNK_CHARS characters, cutting at line ends."""

    def __init__(self, max_pages: int):
        self.max_pages = max_pages
        self.pages: list[str] = []
        self._lines: list[str] = []
        self._size = 0

    @property
    def full(self) -> bool:
        return len(self.pages) >= self.max_pages

    def add(self, line: str) -> None:
        while len(line) > CHUNK_CHARS and not self.full:  # one very long line
            self.add(line[:CHUNK_CHARS])
            line = line[CHUNK_CHARS:]
        if self.full:
            return
        if self._size + len(line) > CHUNK_CHARS and self._lines:
            self._flush()
            if self.full:
                return
        self._lines.append(line)
        self._size += len(line) + 1

    def _flush(self) -> None:
        self.pages.append("\n".join(self._lines))
        self._lines, self._size = [], 0

    def finish(self) -> list[str]:
        if self._lines and not self.full:
            self._flush()
        return self.pages


# --- text --------------------------------------------------------------------------------


def _read_text(path: Path, max_pages: int) -> DocumentText:
    limit = max_pages * _TEXT_BYTES_PER_PAGE
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    truncated = len(data) > limit
    data = data[:limit]
    text, encoding = decode_text(data, path.name, cut=truncated)
    chunker = _Chunker(max_pages)
    for line in text.splitlines():
        chunker.add(line)
        if chunker.full:
            truncated = True  # the line that did not fit is dropped
            break
    pages = chunker.finish()
    note = None
    if truncated:
        note = f"Only the first {len(pages):,} pages of about {CHUNK_CHARS:,} characters were read (page limit)."
    if not text.strip():
        note = "This file contains no text."
    return DocumentText(
        path=str(path),
        kind="text",
        pages=pages,
        total_pages=len(pages),
        note=note,
        encoding=encoding,
    )
