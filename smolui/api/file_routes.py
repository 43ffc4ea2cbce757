"""The app's own route for the files the agent's code wrote: one file, or all of a turn's as
a zip. Never gradio's file cache: a link names a turn's batch and its secret key, which only
the owner's page was shown (`smolui.render.downloads`); anything else is a 404.
"""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

FILES_PREFIX = "/smolui/files"
ZIP_CHUNK = 64 * 1024
SPOOL_BYTES = 8 * 1024 * 1024  # a zip larger than this is spooled to disk while it streams
NOT_FOUND = "No such file."


def attachment(name: str) -> dict[str, str]:
    """Headers that make the browser save the answer as `name` and never render it.

    Args:
        name: The file's name (its last part is used).
    """
    base = name.rsplit("/", 1)[-1] or "file"
    ascii_name = base.encode("ascii", "replace").decode().replace('"', "_").replace("?", "_")
    return {
        "Content-Disposition": (
            f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(base, safe='')}"
        ),
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "private, no-store",
    }


def file_router(outputs: Callable[[], Any]) -> Any:
    """The download routes (a FastAPI router).

    Args:
        outputs: Returns the store's `OutputFiles` (the store opens on first use).
    """
    from fastapi import APIRouter
    from fastapi.responses import FileResponse, PlainTextResponse, StreamingResponse

    router = APIRouter()

    @router.get(FILES_PREFIX + "/{batch}/{key}/all.zip", include_in_schema=False)
    def download_all(batch: str, key: str) -> Any:
        pairs = outputs().paths(batch, key)
        if not pairs:
            return PlainTextResponse(NOT_FOUND, status_code=404)
        return StreamingResponse(
            _zipped(pairs), media_type="application/zip", headers=attachment("files.zip")
        )

    @router.get(FILES_PREFIX + "/{batch}/{key}/{file_id}/{name}", include_in_schema=False)
    def download(batch: str, key: str, file_id: int, name: str) -> Any:
        found = outputs().path_of(batch, key, file_id)
        if found is None:
            return PlainTextResponse(NOT_FOUND, status_code=404)
        file, path = found
        # Always a download, never shown inline: the bytes came from model-written code.
        return FileResponse(
            path, media_type="application/octet-stream", headers=attachment(file.name)
        )

    return router


def _zipped(pairs: list[tuple[Any, Any]]) -> Iterator[bytes]:
    """A zip of the files under their names, in chunks (built in a spooled file).

    Stored, not compressed: anyone holding the link may ask again and again, and each ask
    then costs a copy of the bytes (as the single-file downloads do), not the CPU of
    compressing them anew.
    """
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
        with zipfile.ZipFile(spool, "w", zipfile.ZIP_STORED) as archive:
            used: set[str] = set()
            for file, path in pairs:
                archive.write(path, _unique(file.name, used))
        spool.seek(0)
        while chunk := spool.read(ZIP_CHUNK):
            yield chunk


def _unique(name: str, used: set[str]) -> str:
    """`name` inside the zip: relative, without "..", not taken yet."""
    parts = [part for part in name.split("/") if part not in ("", ".", "..")]
    candidate = "/".join(parts) or "file"
    stem, index = candidate, 2
    while candidate in used:
        candidate, index = f"{index}-{stem}", index + 1
    used.add(candidate)
    return candidate


__all__ = ["FILES_PREFIX", "attachment", "file_router"]
