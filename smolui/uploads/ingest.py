"""The one entry point of upload ingestion: check, store, extract, describe.

`ingest()` takes the files of one chat message and never raises for a bad file: each file
is either accepted (stored in the session folder, text extracted or image prepared) or
refused with a reason in plain words, and the rest of the message goes on.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smolui.uploads.describe import agent_note, first_lines, human_size, user_lines
from smolui.uploads.folders import folder_usage
from smolui.uploads.names import display_name, extension_of, safe_name
from smolui.uploads.policy import (
    DATA_KINDS,
    DOCUMENT_KINDS,
    IMAGE_KINDS,
    REFUSED_EXTENSIONS,
    UploadPolicy,
)
from smolui.uploads.sniff import ContentMismatch, check_content
from smolui.uploads.tables import TableError, TableSummary, summarize_table
from tools.document_reader import DocumentError

logger = logging.getLogger(__name__)

_COPY_CHUNK = 1024 * 1024


class Refused(Exception):
    """A file is refused; the message is the reason shown to the user."""


@dataclass
class AcceptedFile:
    """A file stored in the session folder.

    Args:
        display_name: The original name, cleaned for display.
        stored_path: Where the file is, inside the session folder.
        kind: "pdf", "docx", "text", "table" or "image".
        label: What it is, in words ("PDF", "PNG image").
        size: Size in bytes.
        pages: Pages of a PDF, chunks of a DOCX or text file; None for images.
        chars: Characters extracted; None for images.
        first_lines: The first lines of a document ("" for images).
        note: What the reader should know (encrypted, scanned, capped), or None.
        width: Image width in pixels, else None.
        height: Image height in pixels, else None.
        table: Columns, row count and first rows of a data file (CSV, TSV, XLSX), else None.
        text: The text extracted from a document ("" otherwise), for the conversation search.
    """

    display_name: str
    stored_path: Path
    kind: str
    label: str
    size: int
    pages: int | None = None
    chars: int | None = None
    first_lines: str = ""
    note: str | None = None
    width: int | None = None
    height: int | None = None
    table: TableSummary | None = None
    text: str = field(default="", repr=False)


@dataclass
class RefusedFile:
    """A file that was not stored, and why (in plain words)."""

    display_name: str
    reason: str


@dataclass
class IngestResult:
    """What became of the files of one message.

    Args:
        accepted: Files stored and read.
        refused: Files refused, with reasons.
        images: PIL images to pass to the agent as `images=` (empty when the model is
            text-only, or no image was accepted).
        note: The text to put before the user's message in the agent's task ("" if no file).
    """

    accepted: list[AcceptedFile] = field(default_factory=list)
    refused: list[RefusedFile] = field(default_factory=list)
    images: list[Any] = field(default_factory=list)
    note: str = ""

    def task(self, text: str) -> str:
        """The agent's task: the note about the files, then the user's text.

        Args:
            text: What the user typed.
        """
        return f"{self.note}\n\n{text}".strip() if self.note else text

    def user_messages(self) -> list[str]:
        """One plain-words line per file for the chat: attached (with details) or refused."""
        return user_lines(self)


def ingest(
    files: list[tuple[str, str | os.PathLike]],
    session_dir: str | os.PathLike,
    policy: UploadPolicy | None = None,
    images_to_model: bool = True,
) -> IngestResult:
    """Check, store and read the files attached to one chat message.

    Args:
        files: (original name as the browser sent it, path of the received temporary file).
        session_dir: The session's upload folder (see `session_folder`); created if missing.
        policy: The limits; `UploadPolicy()` when None.
        images_to_model: Whether the model accepts images; if not, `images` stays empty and
            the note says images are available to code only.

    Returns:
        The accepted and refused files, the images for `images=`, and the note for the task.
    """
    policy = policy or UploadPolicy()
    folder = Path(os.path.abspath(session_dir))  # the note gives paths to code in other processes
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if folder.is_symlink():
        raise ValueError(f"The upload folder {folder} must not be a symbolic link.")
    result = IngestResult()
    for original, source in files:
        name = display_name(original)
        try:
            accepted, image = _ingest_one(original, Path(source), folder, policy)
        except Refused as refusal:
            logger.info("upload refused: %r: %s", name, refusal)
            result.refused.append(RefusedFile(name, str(refusal)))
            continue
        result.accepted.append(accepted)
        if image is not None and images_to_model:
            result.images.append(image)
    result.note = agent_note(result, images_to_model)
    return result


def check_upload(original: str, source: str | os.PathLike, policy: UploadPolicy) -> str | None:
    """Why a file just attached would be refused (its name, size and first bytes, as
    `ingest` checks them), or None when it passes; for the page, before the message is sent.

    The conversation's own limits (how many files it holds) and reading the whole file
    wait for `ingest`.

    Args:
        original: The name the browser sent.
        source: The received temporary file.
        policy: The limits.
    """
    try:
        _check_file(original, Path(source), policy)
    except Refused as refusal:
        return str(refusal)
    return None


def _check_file(original: str, source: Path, policy: UploadPolicy) -> tuple[str, int]:
    """The extension and size of a file whose name, size and content pass; else `Refused`."""
    extension = _check_extension(original, policy)
    size = _check_file_size(source, policy)
    kind = DOCUMENT_KINDS.get(extension) or DATA_KINDS.get(extension) or IMAGE_KINDS[extension]
    try:
        check_content(source, kind)
    except ContentMismatch as exc:
        raise Refused(str(exc)) from None
    return extension, size


def _ingest_one(
    original: str, source: Path, folder: Path, policy: UploadPolicy
) -> tuple[AcceptedFile, Any]:
    extension, size = _check_file(original, source, policy)
    _check_room(size, folder, policy)
    kind = DOCUMENT_KINDS.get(extension) or DATA_KINDS.get(extension) or IMAGE_KINDS[extension]
    stored = _store(source, folder, original, extension, policy)
    try:
        if extension in IMAGE_KINDS:
            return _read_image(stored, original, kind, size, policy)
        if extension in DATA_KINDS:
            return _read_table_file(stored, original, kind, size, policy), None
        return _read_document_file(stored, original, size, policy), None
    except Refused:
        stored.unlink(missing_ok=True)
        raise
    except Exception:  # a parser bug must not take the message down; keep nothing half-read
        logger.exception("reading the upload %s failed", stored)
        stored.unlink(missing_ok=True)
        raise Refused(
            "the file could not be read (an unexpected error; see the server log)"
        ) from None


def _check_extension(original: str, policy: UploadPolicy) -> str:
    extension = extension_of(original)
    accepted = ", ".join(policy.allowed_extensions)
    if not extension:
        raise Refused(f"the name has no extension; accepted types: {accepted}")
    if extension in REFUSED_EXTENSIONS:
        raise Refused(REFUSED_EXTENSIONS[extension])
    if extension not in policy.allowed_extensions:
        raise Refused(f"{extension} files are not accepted; accepted types: {accepted}")
    return extension


def _check_file_size(source: Path, policy: UploadPolicy) -> int:
    try:
        info = source.stat()
    except OSError:
        raise Refused("the upload did not arrive (the temporary file is missing)") from None
    if not source.is_file():
        raise Refused("the upload is not a regular file")
    if info.st_size == 0:
        raise Refused("the file is empty (0 bytes)")
    if info.st_size > policy.max_file_bytes:
        raise Refused(
            f"the file is {human_size(info.st_size)}, over the limit of {human_size(policy.max_file_bytes)} per file"
        )
    return info.st_size


def _check_room(size: int, folder: Path, policy: UploadPolicy) -> None:
    """The conversation can take one more file of `size` bytes; else `Refused`."""
    count, total = folder_usage(folder)
    if count >= policy.max_session_files:
        raise Refused(
            f"this conversation already holds {count} files, the limit; start a new chat to add more"
        )
    if total + size > policy.max_session_bytes:
        raise Refused(
            f"this conversation's files would exceed {human_size(policy.max_session_bytes)} in total "
            f"({human_size(total)} already stored)"
        )


def _store(source: Path, folder: Path, original: str, extension: str, policy: UploadPolicy) -> Path:
    """Copy the upload into the folder under a new safe name; never overwrite, never follow links."""
    taken = {entry.name for entry in folder.iterdir()}
    for _ in range(100):  # another request may take a name between listing and creating
        name = safe_name(original, extension, taken, policy.max_name_chars)
        target = folder / name
        if Path(name).name != name or target.parent != folder:
            raise Refused("the file name cannot be made safe")
        cloexec = getattr(os, "O_CLOEXEC", 0)  # stdlib: POSIX only
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | cloexec
        try:
            descriptor = os.open(target, flags, 0o600)
        except FileExistsError:
            taken.add(name)
            continue
        _copy(source, descriptor, target, policy.max_file_bytes)
        return target
    raise Refused("no free file name was found in this conversation's folder")


def _copy(source: Path, descriptor: int, target: Path, limit: int) -> None:
    copied = 0
    try:
        with os.fdopen(descriptor, "wb") as out, open(source, "rb") as src:
            while chunk := src.read(_COPY_CHUNK):
                copied += len(chunk)
                if copied > limit:  # the temporary file grew after it was checked
                    raise Refused("the file is over the size limit")
                out.write(chunk)
    except Refused:
        target.unlink(missing_ok=True)
        raise
    except OSError as exc:
        target.unlink(missing_ok=True)
        raise Refused(f"the file could not be saved ({exc.strerror})") from None


def _read_document_file(
    stored: Path, original: str, size: int, policy: UploadPolicy
) -> AcceptedFile:
    from tools.document_reader import read_document

    try:
        document = read_document(
            stored, max_pages=policy.max_pages, time_budget_s=policy.time_budget_s
        )
    except DocumentError as exc:
        raise Refused(_reason(str(exc), stored.name)) from None
    labels = {"pdf": "PDF", "docx": "Word document", "text": "text file"}
    label = labels[document.kind]
    if document.encoding and document.encoding not in ("utf-8", "ascii"):
        label = f"{document.encoding} text file"
    return AcceptedFile(
        display_name=display_name(original),
        stored_path=stored,
        kind=document.kind,
        label=label,
        size=size,
        pages=document.total_pages,
        chars=document.chars,
        first_lines=first_lines(document.pages, policy.preview_lines),
        note=document.note,
        text=document.text,
    )


def _read_table_file(
    stored: Path, original: str, kind: str, size: int, policy: UploadPolicy
) -> AcceptedFile:
    try:
        summary = summarize_table(stored, kind, policy.time_budget_s)
    except TableError as exc:
        raise Refused(str(exc)) from None
    labels = {"csv": "CSV table", "tsv": "TSV table", "xlsx": "Excel workbook"}
    return AcceptedFile(
        display_name=display_name(original),
        stored_path=stored,
        kind="table",
        label=labels[kind],
        size=size,
        note=summary.note,
        table=summary,
    )


def _read_image(
    stored: Path, original: str, kind: str, size: int, policy: UploadPolicy
) -> tuple[AcceptedFile, Any]:
    from smolui.uploads.images import ImageRefused, prepare_image

    try:
        prepared = prepare_image(stored, kind, policy.max_image_pixels, policy.max_image_side)
    except ImageRefused as exc:
        raise Refused(str(exc)) from None
    accepted = AcceptedFile(
        display_name=display_name(original),
        stored_path=stored,
        kind="image",
        label=f"{kind.upper()} image",
        size=size,
        note="Animated: only the first frame is shown to the model." if prepared.animated else None,
        width=prepared.width,
        height=prepared.height,
    )
    return accepted, prepared.image


def _reason(message: str, stored_name: str) -> str:
    """Reader messages start with the stored name; the chat shows the display name already."""
    if message.startswith(stored_name):
        message = "the file" + message[len(stored_name) :]
    return message.rstrip(".")
