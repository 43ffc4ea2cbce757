"""Document tools: list, read and search the files of one folder (a session's uploads).

Every path the model gives is resolved inside that folder; anything that leads outside it
(`..`, an absolute path elsewhere, a symlink pointing out) is refused.
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.base import Tool, ToolExecutionError

if TYPE_CHECKING:
    from tools.document_reader import DocumentText

MAX_SEARCH_RESULTS = 50
"""Passages one search_document call returns at most, whatever max_results asks."""

_KINDS = {
    ".pdf": "PDF",
    ".docx": "Word document",
    ".txt": "text",
    ".md": "Markdown",
    ".csv": "CSV",
    ".json": "JSON",
}


class DocumentFolder:
    """A folder the document tools may read, with a small cache of parsed documents.

    Args:
        root: The folder.
        max_cached: Parsed documents kept in memory.
    """

    def __init__(self, root: str | os.PathLike[str], max_cached: int = 8):
        self.root = Path(root).resolve()
        self.max_cached = max_cached
        self._cache: OrderedDict[tuple[str, int, int], DocumentText] = OrderedDict()

    def files(self) -> list[Path]:
        """The regular files under the folder (symlinks leading outside are skipped)."""
        if not self.root.is_dir():
            return []
        found = []
        for path in sorted(self.root.rglob("*")):
            if path.name.startswith(".") or not path.is_file():
                continue
            if _inside(path.resolve(), self.root):
                found.append(path)
        return found

    def resolve(self, path: str) -> Path:
        """The file `path` names inside the folder; raises a readable error otherwise.

        Args:
            path: A name relative to the folder, or an absolute path inside it.
        """
        if not isinstance(path, str) or not path.strip():
            raise ToolExecutionError("Give the document's file name, as list_documents shows it.")
        candidate = Path(path.strip())
        if not candidate.is_absolute():
            candidate = self.root / candidate
        resolved = candidate.resolve()
        if not _inside(resolved, self.root):
            raise ToolExecutionError(
                f"{path!r} is outside the documents folder; only uploaded files can be read. "
                + self.available()
            )
        if not resolved.is_file():
            raise ToolExecutionError(f"There is no document named {path!r}. " + self.available())
        return resolved

    def available(self) -> str:
        names = [self.display_name(p) for p in self.files()]
        if not names:
            return "No documents have been uploaded."
        return "Available documents: " + ", ".join(names[:30]) + ("..." if len(names) > 30 else "")

    def display_name(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def read(self, path: str) -> DocumentText:
        """Parse a document (cached by path, size and modification time).

        Args:
            path: As for `resolve`.
        """
        from tools.document_reader import DocumentError, read_document

        resolved = self.resolve(path)
        stat = resolved.stat()
        key = (str(resolved), stat.st_size, stat.st_mtime_ns)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        try:
            document = read_document(str(resolved))
        except DocumentError as error:
            raise ToolExecutionError(f"Could not read {path!r}: {error}") from error
        self._cache[key] = document
        while len(self._cache) > self.max_cached:
            self._cache.popitem(last=False)
        return document


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


class ListDocumentsTool(Tool):
    """Lists the documents in the folder: name, type and size."""

    name = "list_documents"
    description = (
        "Lists the documents the user uploaded in this conversation (name, type, size). "
        "Read one with read_document or search it with search_document."
    )
    inputs: dict[str, dict[str, Any]] = {}
    output_type = "string"

    def __init__(self, folder: DocumentFolder | str | os.PathLike[str]):
        super().__init__()
        self.folder = folder if isinstance(folder, DocumentFolder) else DocumentFolder(folder)

    def forward(self) -> str:
        files = self.folder.files()
        if not files:
            return "No documents have been uploaded yet."
        lines = [f"{len(files)} document(s):"]
        for path in files:
            kind = _KINDS.get(path.suffix.lower(), path.suffix.lstrip(".") or "file")
            lines.append(
                f"- {self.folder.display_name(path)} ({kind}, {_size(path.stat().st_size)})"
            )
        return "\n".join(lines)


class ReadDocumentTool(Tool):
    """Returns a document's text, a range of pages at a time.

    Args:
        folder: The folder (or a shared `DocumentFolder`).
        max_characters: Characters returned per call at most.
    """

    name = "read_document"
    description = (
        "Reads an uploaded document (PDF, DOCX, TXT, MD, CSV, JSON) and returns its text with "
        "page numbers. Long documents are returned a range of pages at a time: pass "
        "start_page/end_page to read further."
    )
    inputs = {
        "path": {"type": "string", "description": "The document's name, as list_documents shows."},
        "start_page": {
            "type": "integer",
            "description": "First page to read, from 1 (default 1).",
            "nullable": True,
        },
        "end_page": {
            "type": "integer",
            "description": "Last page to read, included (default: as many as fit).",
            "nullable": True,
        },
    }
    output_type = "string"

    def __init__(
        self, folder: DocumentFolder | str | os.PathLike[str], max_characters: int = 20_000
    ):
        super().__init__()
        self.folder = folder if isinstance(folder, DocumentFolder) else DocumentFolder(folder)
        self.max_characters = max_characters

    def forward(self, path: str, start_page: int | None = None, end_page: int | None = None) -> str:
        document = self.folder.read(path)
        total = len(document.pages)
        if total == 0:
            return f"{path} contains no readable text." + _note(document)
        first = max(1, start_page or 1)
        if first > total:
            raise ToolExecutionError(
                f"{path} has {total} page(s); start_page {first} is past the end."
            )
        last = min(total, end_page or total)
        if last < first:
            raise ToolExecutionError(f"end_page ({last}) is before start_page ({first}).")
        return self._render(path, document, first, last)

    def _render(self, path: str, document: DocumentText, first: int, last: int) -> str:
        unit = "page" if document.kind == "pdf" else "part"
        chunks: list[str] = []
        used = 0
        shown = first - 1
        for number in range(first, last + 1):
            text = document.pages[number - 1].strip()
            block = f"--- {unit} {number} ---\n{text}"
            if chunks and used + len(block) > self.max_characters:
                break
            if not chunks and len(block) > self.max_characters:
                block = block[: self.max_characters] + "\n[... rest of this page cut]"
            chunks.append(block)
            used += len(block)
            shown = number
        total = len(document.pages)
        header = (
            f"{path} ({document.kind}, {document.total_pages} {unit}(s)): {unit}s {first}-{shown}"
        )
        footer = ""
        if shown < total:
            footer = f"\n\n[{total - shown} more {unit}(s); call read_document with start_page={shown + 1}]"
        return f"{header}{_note(document)}\n\n" + "\n\n".join(chunks) + footer


class SearchDocumentTool(Tool):
    """Finds a phrase in a document and returns the passages around it with page numbers.

    The answer is capped before it is built (at most MAX_SEARCH_RESULTS passages and
    `max_characters` characters): code may ask for any max_results, and an answer that is
    too large to send would cost the host its memory.

    Args:
        folder: The folder (or a shared `DocumentFolder`).
        context_chars: Characters shown on each side of a match.
        max_characters: Characters of passages returned per call at most.
    """

    name = "search_document"
    description = (
        "Searches an uploaded document for a word or phrase (case-insensitive) and returns "
        "the matching passages with their page numbers."
    )
    inputs = {
        "path": {"type": "string", "description": "The document's name, as list_documents shows."},
        "query": {"type": "string", "description": "The word or phrase to find."},
        "max_results": {
            "type": "integer",
            "description": (
                f"How many passages to return at most (default 10, up to {MAX_SEARCH_RESULTS})."
            ),
            "nullable": True,
        },
    }
    output_type = "string"

    def __init__(
        self,
        folder: DocumentFolder | str | os.PathLike[str],
        context_chars: int = 250,
        max_characters: int = 20_000,
    ):
        super().__init__()
        self.folder = folder if isinstance(folder, DocumentFolder) else DocumentFolder(folder)
        self.context_chars = context_chars
        self.max_characters = max_characters

    def forward(self, path: str, query: str, max_results: int | None = None) -> str:
        words = query.split()
        if not words:
            raise ToolExecutionError("search_document needs a non-empty query.")
        document = self.folder.read(path)
        pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
        limit = min(MAX_SEARCH_RESULTS, max(1, max_results or 10))
        unit = "page" if document.kind == "pdf" else "part"
        hits: list[str] = []
        used = 0
        full = False  # the answer reached max_characters: later matches are only counted
        count = 0
        for number, page in enumerate(document.pages, start=1):
            for match in pattern.finditer(page):
                count += 1
                if full or len(hits) >= limit:
                    continue
                hit = f"[{unit} {number}] {self._passage(page, match)}"
                full = bool(hits) and used + len(hit) > self.max_characters
                if not full:
                    hits.append(hit[: self.max_characters])
                    used += len(hits[-1])
        if not hits:
            return f"No match for {query!r} in {path}." + _note(document)
        more = f" (showing the first {len(hits)})" if count > len(hits) else ""
        answer = f"{count} match(es) for {query!r} in {path}{more}:\n\n" + "\n\n".join(hits)
        if count > len(hits) and (full or len(hits) == MAX_SEARCH_RESULTS):
            answer += (
                f"\n\n[The answer is capped at {MAX_SEARCH_RESULTS} passages and "
                f"{self.max_characters:,} characters: search a narrower phrase, or read the "
                "pages around a match with read_document.]"
            )
        return answer

    def _passage(self, page: str, match: re.Match[str]) -> str:
        start = max(0, match.start() - self.context_chars)
        end = min(len(page), match.end() + self.context_chars)
        text = page[start : match.start()] + f"**{match.group(0)}**" + page[match.end() : end]
        text = " ".join(text.split())
        return ("..." if start else "") + text + ("..." if end < len(page) else "")


def document_tools(folder: str | os.PathLike[str]) -> list[Tool]:
    """The three document tools sharing one folder and cache.

    Args:
        folder: The folder they may read (a session's upload folder).
    """
    shared = DocumentFolder(folder)
    return [ListDocumentsTool(shared), ReadDocumentTool(shared), SearchDocumentTool(shared)]


def _note(document: DocumentText) -> str:
    return f"\nNote: {document.note}" if document.note else ""


def _size(size: int) -> str:
    for unit in ("bytes", "KB", "MB"):
        if size < 1024 or unit == "MB":
            return f"{size} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} MB"
