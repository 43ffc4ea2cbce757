"""The app's own route for the files the agent's code wrote: one file, or all of a turn's as
a zip. Never gradio's file cache: a link names a turn's batch and its secret key, which only
the owner's page was shown (`smolui.render.downloads`); anything else is a 404.

With sign-in on, the key is not enough for a signed-in owner's files: a link travels (a
forwarded mail, a browser history, a proxy's log), so the request must also be signed in as
that owner. Signed out, it is told to sign in (401); signed in as someone else, it gets the
404 an unknown file gets, which says nothing of whose the file is. An anonymous owner's files
(sign-in off, or optional and not used) have no sign-in to check: their browser holds their
key in its storage, not in a cookie, so the key in the link stays the rule.
"""

from __future__ import annotations

import re
import tempfile
import unicodedata
import zipfile
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

from starlette.requests import Request  # module level: FastAPI reads the routes' annotations

from smolui.api.viewer import Viewer

FILES_PREFIX = "/smolui/files"
ZIP_CHUNK = 64 * 1024
SPOOL_BYTES = 8 * 1024 * 1024  # a zip larger than this is spooled to disk while it streams
NOT_FOUND = "No such file."
SIGN_IN_NEEDED = "Sign in to this app as the owner of this conversation to download its files."
ZIP_FALLBACK = "smolui-files"  # the zip's name when the title gives nothing a file may be named
ZIP_NAME_CHARS = 80
# Characters no file may hold on one system or another (Windows is the strictest).
_NOT_IN_NAMES = re.compile(r'[\\/:*?"<>|]+')


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


def is_browser_key(owner: str) -> bool:
    """Whether `owner` is an anonymous browser's random key, not a signed-in owner id.

    Signed-in owners are "<provider>:<name>" (`smolui.auth.Identity.owner`), as is the API's
    local owner; a browser's key is URL-safe base64, which has no ":".

    Args:
        owner: A conversation's owner.
    """
    return ":" not in owner


def file_router(outputs: Callable[[], Any], viewer: Viewer | None = None) -> Any:
    """The download routes (a FastAPI router).

    Args:
        outputs: Returns the store's `OutputFiles` (the store opens on first use).
        viewer: Who a request comes from, when sign-in is on (`smolui.api.viewer`); None
            with sign-in off, where the link's key alone decides.
    """
    from fastapi import APIRouter
    from fastapi.responses import FileResponse, PlainTextResponse, StreamingResponse

    router = APIRouter()
    headers = {"Cache-Control": "private, no-store"}

    def refused(request: Request, owner: str) -> Any:
        """The answer to a request that may not have the owner's files, or None."""
        if viewer is None or is_browser_key(owner):
            return None
        who = viewer(request)
        if not who.signed_in:
            return PlainTextResponse(SIGN_IN_NEEDED, status_code=401, headers=headers)
        if who.owner != owner:
            return PlainTextResponse(NOT_FOUND, status_code=404, headers=headers)
        return None

    @router.get(FILES_PREFIX + "/{batch}/{key}/all.zip", include_in_schema=False)
    def download_all(batch: str, key: str, request: Request) -> Any:
        pairs = outputs().paths(batch, key)
        if not pairs:
            return PlainTextResponse(NOT_FOUND, status_code=404, headers=headers)
        refusal = refused(request, pairs[0][0].owner)
        if refusal is not None:
            return refusal
        name = zip_name(outputs().title_of(batch))
        return StreamingResponse(
            _zipped(pairs), media_type="application/zip", headers=attachment(name)
        )

    @router.get(FILES_PREFIX + "/{batch}/{key}/{file_id}/{name}", include_in_schema=False)
    def download(batch: str, key: str, file_id: int, name: str, request: Request) -> Any:
        found = outputs().path_of(batch, key, file_id)
        if found is None:
            return PlainTextResponse(NOT_FOUND, status_code=404, headers=headers)
        file, path = found
        refusal = refused(request, file.owner)
        if refusal is not None:
            return refusal
        # Always a download, never shown inline: the bytes came from model-written code.
        return FileResponse(
            path, media_type="application/octet-stream", headers=attachment(file.name)
        )

    return router


def zip_name(title: str | None) -> str:
    """The zip's file name, after the conversation's title: "Monthly sales - files.zip".

    Characters a file name may not hold (control characters, `/ \\ : * ? " < > |`) become
    spaces; a title with no letter or digit left (empty, only punctuation, unknown) gives
    "smolui-files.zip".

    Args:
        title: The conversation's title, or None when unknown.
    """
    text = "".join(" " if unicodedata.category(c)[0] == "C" else c for c in str(title or ""))
    text = " ".join(_NOT_IN_NAMES.sub(" ", text).split())[:ZIP_NAME_CHARS].strip(" .")
    if not any(c.isalnum() for c in text):
        return f"{ZIP_FALLBACK}.zip"
    return f"{text} - files.zip"


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


__all__ = ["FILES_PREFIX", "attachment", "file_router", "is_browser_key", "zip_name"]
