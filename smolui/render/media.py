"""Images and audio the agent produced, written to files the page can show.

Values are re-encoded into a folder the app owns (under the system temp directory, which
gradio serves), never served from wherever a tool said they were.
"""

from __future__ import annotations

import logging
import re
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from smolui.render.messages import media_kind
from tools.agent_types import raw_image, write_wav

logger = logging.getLogger(__name__)


_NAME_BYTES = 6  # a media file's name: this many random bytes in hex, then its suffix
_APP_NAME = re.compile(rf"[0-9a-f]{{{2 * _NAME_BYTES}}}\.(png|wav)")


def named_by_the_app(name: str) -> bool:
    """Whether a file name is one `MediaSink` made up (random hex: it says nothing to a
    reader, who is better told what the file is).

    Args:
        name: A file's name, without its folder.
    """
    return _APP_NAME.fullmatch(name) is not None


def media_root() -> Path:
    """The parent folder of every conversation's media folder."""
    return Path(tempfile.gettempdir()) / "smolui-media"


class MediaSink:
    """Saves images (PNG) and audio (WAV) into one conversation's media folder.

    Args:
        folder: Where to write; created on first use.
    """

    def __init__(self, folder: Path):
        self.folder = folder

    def __call__(self, value: Any) -> dict[str, Any] | None:
        """Write `value` and return a chat file dict, or None if it cannot be shown.

        Args:
            value: A PIL image, AgentImage or AgentAudio.
        """
        kind = media_kind(value)
        try:
            if kind == "image":
                return self._image(value)
            if kind == "audio":
                return self._audio(value)
        except Exception:
            logger.exception("could not save a %s for display", kind)
        return None

    def _path(self, suffix: str) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        return self.folder / f"{secrets.token_hex(_NAME_BYTES)}{suffix}"

    def _image(self, value: Any) -> dict[str, Any]:
        image = raw_image(value)  # else PIL
        path = self._path(".png")
        image.save(path, format="PNG")
        return {"path": str(path), "mime_type": "image/png"}

    def _audio(self, value: Any) -> dict[str, Any]:
        path = self._path(".wav")
        write_wav(str(path), value.to_raw(), value.samplerate)
        return {"path": str(path), "mime_type": "audio/wav"}


def files_under(folder: Path) -> list[Path]:
    """Every plain file below `folder` (none when it is missing); links are not followed.

    Args:
        folder: A conversation's media (or upload) folder.
    """
    if not folder.is_dir() or folder.is_symlink():
        return []
    return [path for path in folder.rglob("*") if path.is_file() and not path.is_symlink()]


def cached_copies(
    paths: list[Path], cache_dir: Path, copy_name: Callable[[Path], str]
) -> list[Path]:
    """Where gradio's file cache holds copies of `paths` (or the paths themselves, when they
    are in it): gradio copies a file it serves to `<cache>/<hash of its bytes>/<name>`.

    Read before the files are deleted: the copy's place depends on their bytes.

    Args:
        paths: Files a conversation showed (media, uploads).
        cache_dir: Gradio's cache folder (`Blocks.GRADIO_CACHE`).
        copy_name: Where gradio puts a file's copy, relative to its cache ("<hash>/<name>").
    """
    cache = cache_dir.resolve()
    found = []
    for path in paths:
        try:
            resolved = path.resolve()
            if resolved.is_relative_to(cache):
                found.append(resolved)
            elif resolved.is_file():
                found.append((cache / copy_name(resolved)).resolve())
        except OSError:
            continue
    # gradio keeps every copy in a folder of its own: never touch the cache folder itself
    return [path for path in found if path.is_relative_to(cache) and path.parent != cache]


def remove_files(paths: list[Path]) -> int:
    """Delete these files (and their folder once empty); returns how many were deleted.

    Args:
        paths: Files to delete; missing ones are skipped.
    """
    removed = 0
    for path in paths:
        try:
            if path.is_file() and not path.is_symlink():
                path.unlink()
                removed += 1
            path.parent.rmdir()  # gradio's per-hash folder, once nothing else is in it
        except OSError:
            continue
    return removed
