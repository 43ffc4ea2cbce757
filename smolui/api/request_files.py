"""Files that come with an API call (an OpenAI message's image and file parts, the files of
MCP's `ask_agent`): decoded, named, written where the page's uploads land (gradio's upload
folder) and checked as the page checks a file put in its message box. The turn then ingests
them exactly as it ingests the page's uploads (`smolui.turns.request`), and the gate counts
their bytes against the user's daily upload limit.

A file that fails a check refuses the whole call with `FilesRefused` (the API's
`invalid_request_error`) before any turn starts: an API client cannot see a struck-through
attachment, so it must not get an answer that silently ignored its file.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import secrets
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote_to_bytes

from smolui.uploads import UploadPolicy, check_upload, folder_usage
from smolui.uploads.describe import human_size
from smolui.uploads.names import MAX_NAME_BYTES, base_name

FOLDER_PREFIX = "smolui-api-"
NO_URLS = (
    "is an http(s) URL, which this server does not fetch: send the file itself, as a data: "
    "URL (data:image/png;base64,...)"
)
# Names for files sent without one: the data URL's type gives the extension.
EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/jpg": ".jpg",
    "image/webp": ".webp",
    "image/gif": ".gif",
    "application/pdf": ".pdf",
    "text/plain": ".txt",
    "text/markdown": ".md",
    "text/csv": ".csv",
    "text/tab-separated-values": ".tsv",
    "application/json": ".json",
    "text/html": ".html",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
}

# A fetch allowed by the app's web rules: URL -> (bytes, content type). None: URLs refused.
Fetch = Callable[[str], tuple[bytes, str]]


class FilesRefused(Exception):
    """A file of the call is refused; the message says which and why, for the client."""


@dataclass(frozen=True)
class GivenFile:
    """One file as the call gave it, not yet decoded.

    Args:
        label: How the error messages name it ("image 1", "files[0]").
        name: Its name with an extension ("" when the call gave none).
        source: A `data:` URL, an http(s) URL, or bare base64 (`encoded`).
        encoded: `source` is bare base64 rather than a URL.
        kind: Its content type as the caller stated it apart from `source` ("": unknown),
            to name a file sent without a name.
    """

    label: str
    name: str
    source: str
    encoded: bool = False
    kind: str = ""


@dataclass
class SavedFiles:
    """Files written for one call: their paths, for the turn, and their folders, to delete
    them when the call is refused before its turn starts.

    Args:
        paths: Each file, named as the caller named it.
        folders: The folders made for them.
    """

    paths: list[str]
    folders: list[Path]

    def discard(self) -> None:
        """Delete the files (the call was refused: no turn will ingest them)."""
        for folder in self.folders:
            shutil.rmtree(folder, ignore_errors=True)


class RequestFiles:
    """Writes and checks the files of API calls.

    Args:
        policy: The upload limits (the page's).
        max_files: Most files per message (the page's).
        root: Returns the folder the page's uploads land in (gradio's upload folder);
            called on first use.
        fetch: Fetches an http(s) URL when the app's web rules allow it (None: refused).
    """

    def __init__(
        self,
        policy: UploadPolicy,
        max_files: int,
        root: Callable[[], Path] | None = None,
        fetch: Fetch | None = None,
    ):
        self.policy, self.max_files = policy, max_files
        self.root, self.fetch = root or gradio_upload_folder, fetch

    def save(self, given: list[GivenFile]) -> SavedFiles:
        """Decode, write and check each file.

        Args:
            given: The call's files, in order.

        Raises:
            FilesRefused: Too many files, or one fails a check (nothing is left written).
        """
        if len(given) > self.max_files:
            raise FilesRefused(
                f"At most {self.max_files} files can be attached to one message; "
                f"this one has {len(given)}."
            )
        saved = SavedFiles([], [])
        try:
            for item in given:
                self._save_one(item, saved)
        except FilesRefused:
            saved.discard()
            raise
        return saved

    def _save_one(self, item: GivenFile, saved: SavedFiles) -> None:
        data, kind = self._content(item)
        name = _file_name(item, kind)
        folder = Path(self.root()) / f"{FOLDER_PREFIX}{secrets.token_hex(16)}"
        folder.mkdir(mode=0o700, parents=True)
        saved.folders.append(folder)
        path = folder / name
        path.write_bytes(data)
        reason = check_upload(name, path, self.policy)
        if reason is not None:
            raise FilesRefused(f"{item.label} ({name}) is refused: {reason}.")
        saved.paths.append(str(path))

    def _content(self, item: GivenFile) -> tuple[bytes, str]:
        """The file's bytes and content type ("" when unknown), within the size limit."""
        source = item.source.strip()
        if item.encoded:
            return self._decoded(item.label, source, True), item.kind.lower()
        scheme = source.partition(":")[0].lower()
        if scheme in ("http", "https"):
            if self.fetch is None:
                raise FilesRefused(f"{item.label} {NO_URLS}.")
            try:
                data, kind = self.fetch(source)
            except FilesRefused as refused:
                raise FilesRefused(f"{item.label}: {refused}") from None
            self._check_size(item.label, len(data))
            return data, kind
        if scheme != "data" or "," not in source:
            raise FilesRefused(
                f"{item.label} must be a data: URL (data:<type>;base64,<data>) or an http(s) URL."
            )
        header, _, payload = source[len("data:") :].partition(",")
        params = [p.strip().lower() for p in header.split(";")]
        return self._decoded(item.label, payload, "base64" in params[1:]), params[0]

    def _decoded(self, label: str, payload: str, is_base64: bool) -> bytes:
        if not is_base64:
            data = unquote_to_bytes(payload)
            self._check_size(label, len(data))
            return data
        compact = "".join(payload.split())
        self._check_size(label, len(compact) * 3 // 4 - compact[-2:].count("="))
        try:
            return base64.b64decode(compact, validate=True)
        except (binascii.Error, ValueError):
            raise FilesRefused(f"{label} is not valid base64.") from None

    def _check_size(self, label: str, size: int) -> None:
        """Refuse an over-large file before it is decoded or written."""
        if size <= 0:
            raise FilesRefused(f"{label} is empty (0 bytes).")
        if size > self.policy.max_file_bytes:
            raise FilesRefused(
                f"{label} is {human_size(size)}, over the limit of "
                f"{human_size(self.policy.max_file_bytes)} per file."
            )

    def room_refusal(self, upload_dir: Path, paths: list[str]) -> str | None:
        """Why the conversation cannot take these files (its count or total of files kept,
        as the page's ingestion checks them), or None.

        Args:
            upload_dir: The conversation's upload folder.
            paths: The call's written files.
        """
        count, total = folder_usage(Path(upload_dir))
        adding = sum(Path(path).stat().st_size for path in paths)
        if count + len(paths) > self.policy.max_session_files:
            return (
                f"This conversation holds {count} files and takes at most "
                f"{self.policy.max_session_files}: start a new conversation to add more."
            )
        if total + adding > self.policy.max_session_bytes:
            return (
                f"This conversation's files would pass {human_size(self.policy.max_session_bytes)}"
                f" in total ({human_size(total)} kept, {human_size(adding)} more in this message)."
            )
        return None


def _file_name(item: GivenFile, kind: str) -> str:
    """The name to write the file under: the caller's (its last part only), or one made
    from its label and content type."""
    name = base_name(item.name) if item.name else ""
    if not name:
        extension = EXTENSIONS.get(kind) or (mimetypes.guess_extension(kind) if kind else None)
        if not extension:
            named = f" ({kind})" if kind else ""
            raise FilesRefused(
                f"{item.label} has no file name and its type{named} is not one this app "
                "accepts: give its name with an extension."
            )
        name = item.label.replace(" ", "-").replace("[", "-").strip("]") + extension
    if name in (".", "..") or len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise FilesRefused(f"{item.label}'s name is not usable (empty, or over 200 bytes).")
    return name


def web_fetch(max_bytes: int) -> Fetch:
    """A fetch under the app's web rules, for when the operator gave the agent
    `visit_webpage`: that tool's guard (public addresses only unless the operator allows
    private ones, each redirect checked), its timeout, and the upload size limit.

    Args:
        max_bytes: The largest file fetched (the policy's per-file limit).
    """
    from tools.base import ToolExecutionError
    from tools.visit_webpage import VisitWebpageTool

    tool = VisitWebpageTool(max_bytes=max_bytes)

    def fetch(url: str) -> tuple[bytes, str]:
        try:
            body, kind, _, _ = tool.fetch(url)
        except ToolExecutionError as error:
            raise FilesRefused(f"could not be fetched: {error}") from None
        return body, kind

    return fetch


def gradio_upload_folder() -> Path:
    """Where gradio keeps the page's uploads (`GRADIO_TEMP_DIR`, else `<tmp>/gradio`)."""
    from gradio import utils

    return Path(utils.get_upload_folder())
