"""The limits that uploads are held to, as one immutable settings object."""

from __future__ import annotations

from dataclasses import dataclass

from agents.errors import AgentConfigError

# Plain text people attach: notes, logs, configuration, markup and source code. Read as text
# (encoding detected) and refused when the content is binary, whatever the name says.
TEXT_EXTENSIONS = (
    ".txt", ".md", ".rst", ".log", ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg",
    ".xml", ".html", ".htm", ".tex", ".py", ".js", ".ts", ".sh", ".sql",
)  # fmt: skip
DOCUMENT_KINDS = {".pdf": "pdf", ".docx": "docx"} | dict.fromkeys(TEXT_EXTENSIONS, "text")
# Tables: stored for code to read (pandas), summarized for the model (columns, rows).
DATA_KINDS = {".csv": "csv", ".tsv": "tsv", ".xlsx": "xlsx"}
# Refused whatever the policy says, with the reason shown to the user.
REFUSED_EXTENSIONS = {
    ".xlsm": "macro-enabled workbooks (.xlsm) are refused; save it as .xlsx without macros",
    ".xltm": "macro-enabled templates (.xltm) are refused; save it as .xlsx without macros",
    ".xls": "old Excel files (.xls) are not supported; save it as .xlsx or .csv",
}
IMAGE_KINDS = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".webp": "webp", ".gif": "gif"}

MB = 1024 * 1024


@dataclass(frozen=True)
class UploadPolicy:
    """What an upload may be. The UI uses `file_types` for the picker; ingestion checks all.

    Args:
        allowed_extensions: Lower-case extensions with the dot; each must be one that
            `smolui.uploads` can check (see `supported_extensions`).
        max_file_bytes: Largest single file.
        max_session_bytes: Largest total of the files kept in one session.
        max_session_files: Most files kept in one session.
        max_image_pixels: Largest image (width x height) that is decoded; larger is refused.
        max_image_side: Images given to the model are downscaled to fit this many pixels.
        max_pages: Most PDF pages (or text chunks) extracted per document.
        time_budget_s: Seconds of text extraction per document.
        max_name_chars: Longest stored file name, extension included.
        preview_lines: Lines of each document quoted in the agent's note.
    """

    allowed_extensions: tuple[str, ...] = (
        tuple(DOCUMENT_KINDS) + tuple(DATA_KINDS) + tuple(IMAGE_KINDS)
    )
    max_file_bytes: int = 25 * MB
    max_session_bytes: int = 100 * MB
    max_session_files: int = 20
    max_image_pixels: int = 50_000_000
    max_image_side: int = 1536
    max_pages: int = 500
    time_budget_s: float = 10.0
    max_name_chars: int = 100
    preview_lines: int = 5

    def __post_init__(self) -> None:
        unknown = [ext for ext in self.allowed_extensions if ext not in supported_extensions()]
        if unknown:
            raise AgentConfigError(
                f"Upload extensions {unknown} are not supported; choose from {sorted(supported_extensions())}."
            )
        if (
            min(
                self.max_file_bytes,
                self.max_session_bytes,
                self.max_session_files,
                self.max_image_pixels,
            )
            <= 0
        ):
            raise AgentConfigError("Upload limits must be positive numbers.")
        if self.max_name_chars < 16:
            raise AgentConfigError("max_name_chars must be at least 16.")

    @property
    def file_types(self) -> list[str]:
        """The extensions for a Gradio file picker (`file_types=`)."""
        return list(self.allowed_extensions)


def supported_extensions() -> set[str]:
    """Every extension that the content checks know about."""
    return set(DOCUMENT_KINDS) | set(DATA_KINDS) | set(IMAGE_KINDS)
