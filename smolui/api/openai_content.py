"""The files of an OpenAI chat message: its `image_url` parts (a `data:` URL, or an http(s)
URL) and `file` parts (`file_data` as a `data:` URL or bare base64, with a `filename`),
read into `GivenFile`s for `RequestFiles`. Any other part is refused by name, so a client
never gets an answer that quietly ignored what it sent."""

from __future__ import annotations

from typing import Any

from smolui.api.request_files import FilesRefused, GivenFile

PART_TYPES = "text, image_url or file"


def message_files(content: Any) -> list[GivenFile]:
    """The files a message's content parts carry, in order (none for plain text).

    Args:
        content: The message's `content`: a string, or a list of parts.

    Raises:
        FilesRefused: A part is malformed, or of a kind this app does not take.
    """
    if not isinstance(content, list):
        return []
    files: list[GivenFile] = []
    images = 0
    for index, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            continue
        if kind == "image_url":
            images += 1
            files.append(_image(part.get("image_url"), f"image {images}"))
        elif kind == "file":
            files.append(_file(part.get("file"), f"file {len(files) - images + 1}"))
        elif isinstance(kind, str):
            raise FilesRefused(
                f"Content part {index} is of type '{kind}', which this app does not take: "
                f"send {PART_TYPES} parts."
            )
        else:
            raise FilesRefused(f"Content part {index} has no type: send {PART_TYPES} parts.")
    return files


def _image(value: Any, label: str) -> GivenFile:
    url = value.get("url") if isinstance(value, dict) else value  # some clients send the URL bare
    if not isinstance(url, str) or not url.strip():
        raise FilesRefused(f"{label} has no 'image_url.url'.")
    return GivenFile(label, "", url)


def _file(value: Any, label: str) -> GivenFile:
    if not isinstance(value, dict):
        raise FilesRefused(f"{label} needs a 'file' object with 'file_data' and 'filename'.")
    data, name = value.get("file_data"), value.get("filename")
    if not isinstance(data, str) or not data.strip():
        if value.get("file_id"):
            raise FilesRefused(
                f"{label} names an uploaded file ('file_id'), which this server does not "
                "keep: send its content as 'file_data' (data:<type>;base64,<data>)."
            )
        raise FilesRefused(f"{label} has no 'file_data' (data:<type>;base64,<data>).")
    if name is not None and not isinstance(name, str):
        raise FilesRefused(f"{label}'s 'filename' must be a string.")
    encoded = not data.lstrip().lower().startswith("data:")
    return GivenFile(label, name or "", data, encoded=encoded)
