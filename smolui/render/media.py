"""Images and audio the agent produced, written to files the page can show.

Values are re-encoded into a folder the app owns (under the system temp directory, which
gradio serves), never served from wherever a tool said they were.
"""

from __future__ import annotations

import logging
import secrets
import tempfile
from pathlib import Path
from typing import Any

from smolui.render.messages import media_kind
from tools.agent_types import raw_image, write_wav

logger = logging.getLogger(__name__)


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
        return self.folder / f"{secrets.token_hex(6)}{suffix}"

    def _image(self, value: Any) -> dict[str, Any]:
        image = raw_image(value)  # else PIL
        path = self._path(".png")
        image.save(path, format="PNG")
        return {"path": str(path), "mime_type": "image/png"}

    def _audio(self, value: Any) -> dict[str, Any]:
        path = self._path(".wav")
        write_wav(str(path), value.to_raw(), value.samplerate)
        return {"path": str(path), "mime_type": "audio/wav"}
