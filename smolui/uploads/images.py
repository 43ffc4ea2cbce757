"""Image checks and preparation with Pillow: pixel cap, orientation, downscaling."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

_PILLOW_FORMATS = {"png": "PNG", "jpeg": "JPEG", "gif": "GIF", "webp": "WEBP"}


class ImageRefused(ValueError):
    """An image cannot be used; the message says why in plain words."""


@dataclass
class PreparedImage:
    """An image ready for the model.

    Args:
        image: The decoded, upright, downscaled PIL image (RGB or RGBA).
        width: Width of the original file, in pixels.
        height: Height of the original file, in pixels.
        animated: Whether the file holds several frames (only the first is used).
    """

    image: Any
    width: int
    height: int
    animated: bool = False


def prepare_image(path: str | Path, kind: str, max_pixels: int, max_side: int) -> PreparedImage:
    """Decode an image safely and make it ready for a model.

    The declared size is checked before any pixel is decoded, so a small file declaring a
    huge picture (a decompression bomb) is refused without using memory.

    Args:
        path: The image file.
        kind: The expected format: "png", "jpeg", "gif" or "webp".
        max_pixels: Largest width x height accepted.
        max_side: The prepared image fits in a square of this many pixels.

    Raises:
        ImageRefused: Not an image of that kind, too many pixels, truncated or damaged.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(path)
    except Image.DecompressionBombError:
        raise ImageRefused(_bomb_message(max_pixels)) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        raise ImageRefused(
            "the image cannot be decoded (the file is damaged or not an image)"
        ) from None
    with image:
        if image.format != _PILLOW_FORMATS[kind]:
            raise ImageRefused(
                f"the content is a {image.format} image, not {_PILLOW_FORMATS[kind]}"
            )
        width, height = image.size
        if width * height > max_pixels:
            raise ImageRefused(
                f"the image declares {width:,} × {height:,} pixels, more than the limit of "
                f"{max_pixels / 1e6:,.0f} megapixels"
            )
        animated = bool(getattr(image, "is_animated", False))  # PIL: multi-frame formats only
        return PreparedImage(_decode(image, max_side), width, height, animated)


def _decode(image, max_side: int):
    from PIL import Image, ImageOps

    if image.format == "JPEG":
        image.draft("RGB", (max_side, max_side))  # decode at a reduced scale: less memory, faster
    try:
        image.load()
    except Image.DecompressionBombError:
        raise ImageRefused("the image is too large to decode safely") from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        logger.debug("image decoding failed", exc_info=True)
        raise ImageRefused(f"the image is truncated or damaged ({exc})") from None
    try:
        upright = ImageOps.exif_transpose(image)
    except Exception:  # broken EXIF must not cost the picture
        logger.debug("EXIF orientation ignored", exc_info=True)
        upright = image
    has_alpha = upright.mode in ("RGBA", "LA", "PA") or "transparency" in upright.info
    converted = upright.convert("RGBA" if has_alpha else "RGB")
    converted.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    return converted


def _bomb_message(max_pixels: int) -> str:
    return (
        f"the image declares far more pixels than the limit of {max_pixels / 1e6:,.0f} megapixels "
        "(a decompression bomb); it was not decoded"
    )
