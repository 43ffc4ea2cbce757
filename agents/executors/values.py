"""How values cross from one interpreter to another: JSON-safe trees, never trusted pickle.

The sandbox worker, the remote kernels and the host all load this module, so it imports
only the standard library (Pillow and numpy only when a value needs them).

- untrusted side -> host (`encode_value` / `decode_value`): plain data as JSON, bytes as
  base64, PIL images as PNG, anything else as its repr. The host never unpickles what the
  other side sends: a `pickle` tag coming from there is read as its repr only.
- host -> untrusted side (`encode_value(..., trusted=True)` /
  `decode_value(..., trusted=True)`): the same, plus pickle for other objects (a tool's
  result, a variable), since the host is the trusted side.

Decoding an untrusted tree is linear in its size whatever the sender chose: dicts whose
keys are not all strings (ints, floats, tuples: their hashes are not randomized, so
colliding keys are easy to make) are counted, and their keys' hashes checked, before any
such dict is built.
"""

from __future__ import annotations

import base64
import io
import itertools
from collections.abc import Callable
from typing import Any

TAG = "$t"
MAX_DEPTH = 64
MAX_REPR_CHARS = 100_000
MAX_IMAGE_PIXELS = 40_000_000
MAX_KEYED_ENTRIES = 50_000
"""Entries of tagged (not string-keyed) dicts one decoded value may hold in all."""
MAX_EQUAL_HASHES = 8
"""Keys of one dict that may share a hash (-1 and -2 do); a dict is quadratic in them."""


def encode_value(value: Any, trusted: bool = False, _depth: int = 0) -> Any:
    """Turn a value into a JSON-safe tree (see the module docstring).

    Args:
        value: Anything.
        trusted: Allow pickle for objects that have no plain form (host -> worker only).
    """
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        if kind is int and value.bit_length() > 4000:
            return _as_repr(value)  # json refuses to print huge ints
        return value
    if _depth >= MAX_DEPTH:
        return _as_repr(value)
    if kind is list:
        return [encode_value(v, trusted, _depth + 1) for v in value]
    if kind is tuple:
        return {TAG: "tuple", "v": [encode_value(v, trusted, _depth + 1) for v in value]}
    if kind is dict:
        if all(type(k) is str for k in value) and TAG not in value:
            return {k: encode_value(v, trusted, _depth + 1) for k, v in value.items()}
        pairs = [
            [encode_value(k, trusted, _depth + 1), encode_value(v, trusted, _depth + 1)]
            for k, v in value.items()
        ]
        return {TAG: "dict", "v": pairs}
    if kind in (bytes, bytearray):
        return {TAG: "bytes", "v": base64.b64encode(bytes(value)).decode()}
    if _is_pil_image(value):
        png = image_to_png(value)
        if png is not None:
            return {TAG: "image", "v": base64.b64encode(png).decode()}
    scalar = _numpy_scalar(value)
    if scalar is not None:
        return scalar  # subclasses of int/float/str that are not numpy keep their repr
    if trusted:
        return _as_pickle(value)
    return _as_repr(value)


def decode_value(
    tree: Any, trusted: bool = False, image: Callable[[bytes], Any] | None = None
) -> Any:
    """Rebuild a value from `encode_value`'s tree.

    Args:
        tree: The JSON-decoded tree.
        trusted: Accept pickle payloads (worker side only, for data from the host).
        image: Turns PNG bytes into an image (the host passes one that counts images and
            pixels against a budget, and raises when over it); default `png_to_image`.
    """
    return _Decoder(trusted, image or png_to_image).decode(tree)


class _Decoder:
    """One `decode_value` call: its options and the keyed-dict entries seen so far."""

    def __init__(self, trusted: bool, image: Callable[[bytes], Any]):
        self.trusted = trusted
        self.image = image
        self.keyed_entries = 0

    def decode(self, tree: Any) -> Any:
        if isinstance(tree, list):
            return [self.decode(v) for v in tree]
        if not isinstance(tree, dict):
            return tree
        tag = tree.get(TAG)
        if tag is None:  # JSON object keys are strings: their hashes are randomized
            return {k: self.decode(v) for k, v in tree.items()}
        payload = tree.get("v")
        if tag == "tuple" and isinstance(payload, list):
            return tuple(self.decode(v) for v in payload)
        if tag == "dict" and isinstance(payload, list):
            return self.keyed_dict(payload)
        return _decode_leaf(tree, tag, payload, self.trusted, self.image)

    def keyed_dict(self, payload: list[Any]) -> dict[Any, Any]:
        """A dict from [key, value] pairs. From the untrusted side, refused before it is
        built when too many entries or colliding keys would make building it quadratic."""
        self.keyed_entries += len(payload)
        if not self.trusted and self.keyed_entries > MAX_KEYED_ENTRIES:
            raise ValueError(
                f"a value holding more than {MAX_KEYED_ENTRIES:,} entries of dicts with "
                "non-string keys; send fewer, or use string keys"
            )
        pairs = [(_hashable(self.decode(k)), self.decode(v)) for k, v in payload]
        if not self.trusted:  # the host's own values may be as large as it likes
            _check_hashes([key for key, _ in pairs])
        return dict(pairs)


def _check_hashes(keys: list[Any]) -> None:
    """Refuse keys of which more than MAX_EQUAL_HASHES share a hash (sorting, not a dict,
    finds them: a dict keyed by hashes the sender chose would be attackable too)."""
    hashes = sorted(hash(key) for key in keys)
    longest = max((len(list(run)) for _, run in itertools.groupby(hashes)), default=0)
    if longest > MAX_EQUAL_HASHES:
        raise ValueError(
            f"a dict with {longest} keys of the same hash (more than {MAX_EQUAL_HASHES} "
            "cost quadratic time); use other keys"
        )


def _decode_leaf(
    tree: dict[str, Any], tag: Any, payload: Any, trusted: bool, image: Callable[[bytes], Any]
) -> Any:
    if tag == "bytes" and isinstance(payload, str):
        return base64.b64decode(payload)
    if tag == "image" and isinstance(payload, str):
        return image(base64.b64decode(payload))
    if tag == "pickle" and trusted and isinstance(payload, str):
        return _unpickle(tree)
    return ReprValue(str(tree.get("repr", payload)), str(tree.get("type", "object")))


class ReprValue(str):
    """An object that crossed the pipe as its repr; prints as that repr, without quotes."""

    def __new__(cls, text: str, type_name: str = "object") -> ReprValue:
        obj = super().__new__(cls, text)
        obj.type_name = type_name
        return obj

    def __repr__(self) -> str:
        return str(self)


def _as_repr(value: Any) -> dict[str, Any]:
    kind = type(value)
    name = f"{kind.__module__}.{kind.__qualname__}"
    try:
        text = repr(value)
    except Exception as error:  # a hostile or broken __repr__
        text = f"<{name} object (repr failed: {type(error).__name__})>"
    if len(text) > MAX_REPR_CHARS:
        text = text[:MAX_REPR_CHARS] + f"... [{len(text) - MAX_REPR_CHARS} characters cut]"
    return {TAG: "repr", "v": text, "type": name}


def _as_pickle(value: Any) -> dict[str, Any]:
    import pickle

    fallback = _as_repr(value)
    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return fallback
    return {
        TAG: "pickle",
        "v": base64.b64encode(data).decode(),
        "repr": fallback["v"],
        "type": fallback["type"],
    }


def _unpickle(tree: dict[str, Any]) -> Any:
    import pickle

    try:
        return pickle.loads(base64.b64decode(tree["v"]))
    except Exception:  # the class may not be importable in the worker
        return ReprValue(str(tree.get("repr", "")), str(tree.get("type", "object")))


def _hashable(key: Any) -> Any:
    if isinstance(key, list):
        return tuple(_hashable(k) for k in key)
    if isinstance(key, dict):
        return ReprValue(repr(key), "dict")
    return key


def _numpy_scalar(value: Any) -> Any:
    """numpy scalars as Python numbers, so `np.float64(3.0)` reads as `3.0`."""
    if type(value).__module__ != "numpy" or getattr(value, "ndim", None) != 0:  # numpy object
        return None
    try:
        item = value.item()
    except Exception:
        return None
    return item if isinstance(item, (bool, int, float, str)) else None


def _is_pil_image(value: Any) -> bool:
    return any(
        c.__module__.startswith("PIL.") and c.__name__ == "Image" for c in type(value).__mro__
    )


def image_to_png(image: Any) -> bytes | None:
    """PNG bytes of a PIL image (converted to RGBA when PNG cannot hold its mode)."""
    for candidate in (image, None):
        buffer = io.BytesIO()
        try:
            target = image if candidate is not None else image.convert("RGBA")
            target.save(buffer, format="PNG")
        except Exception:
            continue
        return buffer.getvalue()
    return None


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header, read without decoding anything.

    Raises ValueError when the bytes do not start like a PNG.
    """
    if len(data) < 24 or data[:8] != _PNG_SIGNATURE or data[12:16] != b"IHDR":
        raise ValueError("not a PNG image")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def decode_png(data: bytes, max_pixels: int = MAX_IMAGE_PIXELS) -> Any:
    """A PIL image from PNG bytes, checked against `max_pixels` before any decoding.

    Only the PNG decoder is allowed: other formats' plugins (EPS runs Ghostscript) must
    never see bytes that came from sandboxed code. Raises ValueError (bad or too large
    data) or ImportError (no Pillow).
    """
    from PIL import Image

    width, height = png_size(data)
    if width * height > max_pixels:
        raise ValueError(f"image of {width}x{height} pixels is too large")
    try:
        image = Image.open(io.BytesIO(data), formats=["PNG"])
        if image.size != (width, height):
            raise ValueError("image size does not match its header")
        image.load()
    except Exception as error:  # Pillow raises many kinds for broken data
        raise ValueError(f"unreadable PNG ({type(error).__name__})") from None
    return image


def png_to_image(data: bytes) -> Any:
    """A PIL image from PNG bytes; a ReprValue when Pillow is missing or the data is bad."""
    try:
        return decode_png(data)
    except Exception as error:
        return ReprValue(
            f"<image: {len(data)} bytes, unreadable ({type(error).__name__})>", "image"
        )
