"""Image preparation with real Pillow files: bombs, truncation, orientation, downscaling."""

from __future__ import annotations

import io
import random
import struct
import zlib
from pathlib import Path

import pytest

from smolui.uploads.images import ImageRefused, prepare_image


def noise_image(width: int, height: int, seed: int = 1):
    from PIL import Image

    data = random.Random(seed).randbytes(width * height * 3)
    return Image.frombytes("RGB", (width, height), data)


def png_declaring(path: Path, width: int, height: int) -> Path:
    """A small valid PNG whose header is rewritten to declare another size."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "blue").save(buffer, "PNG")
    data = bytearray(buffer.getvalue())
    ihdr = 8 + 8  # signature, then length + type of the IHDR chunk
    data[ihdr : ihdr + 8] = struct.pack(">II", width, height)
    crc = zlib.crc32(bytes(data[ihdr - 4 : ihdr + 13]))
    data[ihdr + 13 : ihdr + 17] = struct.pack(">I", crc)
    path.write_bytes(bytes(data))
    return path


def truncated_jpeg(path: Path) -> Path:
    buffer = io.BytesIO()
    noise_image(600, 400).save(buffer, "JPEG", quality=90)
    path.write_bytes(buffer.getvalue()[: len(buffer.getvalue()) * 6 // 10])
    return path


def test_png_declaring_30000_by_30000_is_refused_without_decoding(tmp_path):
    path = png_declaring(tmp_path / "bomb.png", 30000, 30000)
    assert path.stat().st_size < 1000
    with pytest.raises(ImageRefused, match="decompression bomb|megapixels"):
        prepare_image(path, "png", max_pixels=50_000_000, max_side=1536)


def test_pixel_cap_below_pillows_own_limit_names_the_size(tmp_path):
    path = png_declaring(tmp_path / "wide.png", 9000, 8000)
    with pytest.raises(ImageRefused, match="9,000 × 8,000 pixels"):
        prepare_image(path, "png", max_pixels=50_000_000, max_side=1536)


def test_truncated_jpeg_is_refused(tmp_path):
    with pytest.raises(ImageRefused, match="truncated or damaged"):
        prepare_image(truncated_jpeg(tmp_path / "cut.jpg"), "jpeg", 50_000_000, 1536)


def test_exif_orientation_is_applied(tmp_path):
    from PIL import Image

    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90° clockwise to display"
    path = tmp_path / "phone.jpg"
    Image.new("RGB", (400, 200), "green").save(path, exif=exif)
    prepared = prepare_image(path, "jpeg", 50_000_000, 1536)
    assert (prepared.width, prepared.height) == (400, 200)
    assert prepared.image.size == (200, 400)


def test_large_image_is_downscaled_keeping_its_shape(tmp_path):
    path = tmp_path / "wide.png"
    noise_image(3000, 1000).save(path)
    prepared = prepare_image(path, "png", 50_000_000, 1536)
    assert prepared.image.size == (1536, 512)
    assert prepared.image.mode == "RGB"


def test_transparency_is_kept_and_gif_uses_its_first_frame(tmp_path):
    from PIL import Image

    logo = tmp_path / "logo.png"
    Image.new("RGBA", (50, 50), (255, 0, 0, 0)).save(logo)
    assert prepare_image(logo, "png", 50_000_000, 1536).image.mode == "RGBA"
    frames = [Image.new("RGB", (40, 30), color) for color in ("red", "blue", "green")]
    gif = tmp_path / "anim.gif"
    frames[0].save(gif, save_all=True, append_images=frames[1:], duration=100, loop=0)
    prepared = prepare_image(gif, "gif", 50_000_000, 1536)
    assert prepared.animated
    assert prepared.image.convert("RGB").getpixel((5, 5)) == (255, 0, 0)


def test_webp_is_decoded(tmp_path):
    path = tmp_path / "pic.webp"
    noise_image(64, 48).save(path, "WEBP")
    assert prepare_image(path, "webp", 50_000_000, 1536).image.size == (64, 48)


def test_format_must_match_the_expected_kind(tmp_path):
    path = tmp_path / "really_a_gif.png"
    noise_image(10, 10).save(path, "GIF")
    with pytest.raises(ImageRefused, match="GIF image, not PNG"):
        prepare_image(path, "png", 50_000_000, 1536)
