"""Images on the wire: PIL images, bytes or paths as base64 data URLs."""

from __future__ import annotations

import base64
import io
from typing import Any


def image_data_url(image: Any) -> str:
    """A PIL image (or PNG/JPEG bytes, or a path) as a base64 data URL."""
    if isinstance(image, str) and image.startswith("data:"):
        return image
    if isinstance(image, (bytes, bytearray)):
        data = bytes(image)
    elif isinstance(image, str):
        with open(image, "rb") as handle:
            data = handle.read()
    else:
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        data = buffer.getvalue()
    mime = "image/jpeg" if data[:3] == b"\xff\xd8\xff" else "image/png"
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"
