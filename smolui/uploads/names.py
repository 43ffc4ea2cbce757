"""Safe, unique file names for uploads, and a clean name to show the user.

The stored name has no path components, no control, format (bidi, zero-width) or shell
characters, fits the length cap, and gets a `-2`, `-3`... suffix when taken. The display
name keeps the original wording but drops what could hide or disguise it.
"""

from __future__ import annotations

import re
import unicodedata

_UNSAFE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_KEEP = re.compile(r"[^\w.\-]+")  # \w is Unicode-aware: letters and digits of any script
_RESERVED = {"con", "prn", "aux", "nul"} | {f"{p}{n}" for p in ("com", "lpt") for n in range(1, 10)}
MAX_DISPLAY_CHARS = 120
MAX_NAME_BYTES = 200  # file systems allow 255 bytes; leave room for the suffix


def _visible(text: str) -> str:
    """Drop control and format characters (bidi overrides, zero-width joiners); newlines become spaces."""
    kept = []
    for ch in text:
        if ch in "\t\r\n":
            kept.append(" ")
        elif unicodedata.category(ch) not in _UNSAFE_CATEGORIES:
            kept.append(ch)
    return "".join(kept)


def base_name(original: str) -> str:
    """The last path component of a name given by a browser (either slash), made visible.

    Args:
        original: The name as the browser sent it.
    """
    name = _visible(original).replace("\\", "/").rsplit("/", 1)[-1]
    return " ".join(name.split()).rstrip(". ")  # Windows drops trailing dots and spaces too


def display_name(original: str) -> str:
    """The name to show in the chat: the original, cleaned, shortened in the middle.

    Args:
        original: The name as the browser sent it.
    """
    name = base_name(original) or "(unnamed)"
    if len(name) <= MAX_DISPLAY_CHARS:
        return name
    keep = (MAX_DISPLAY_CHARS - 1) // 2
    return f"{name[:keep]}…{name[-keep:]}"


def extension_of(original: str) -> str:
    """The lower-case extension of a browser-given name, with the dot ('' when none).

    Args:
        original: The name as the browser sent it.
    """
    name = base_name(original)
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem.strip("."):
        return ""
    return "." + ext.lower()


def safe_name(original: str, extension: str, taken: set[str], max_chars: int = 100) -> str:
    """A stored file name derived from the original, unique among `taken` (case-insensitive).

    Args:
        original: The name as the browser sent it.
        extension: The checked extension to end the name with (".pdf").
        taken: Names already used in the folder; compared case-insensitively.
        max_chars: Longest name, extension and suffix included.
    """
    stem = _safe_stem(original, extension)
    folded = {name.casefold() for name in taken}
    room = max(1, max_chars - len(extension))
    candidate = f"{_clip(stem, room)}{extension}"
    counter = 1
    while candidate.casefold() in folded:
        counter += 1
        suffix = f"-{counter}"
        candidate = f"{_clip(stem, room - len(suffix))}{suffix}{extension}"
    return candidate


def _clip(stem: str, chars: int) -> str:
    """Cut to `chars` characters and MAX_NAME_BYTES bytes of UTF-8, never mid-character."""
    clipped = stem[: max(1, chars)].encode("utf-8")[:MAX_NAME_BYTES].decode("utf-8", "ignore")
    return clipped.rstrip("._-") or "file"


def _safe_stem(original: str, extension: str) -> str:
    name = unicodedata.normalize("NFKC", base_name(original))  # fold look-alike forms
    if name.lower().endswith(extension):
        name = name[: -len(extension)]
    stem = _KEEP.sub("_", name.replace("/", "_"))
    stem = re.sub(r"_{2,}", "_", stem)
    stem = re.sub(r"\.{2,}", ".", stem).strip("._-")
    if not stem:
        return "file"
    if stem.split(".")[0].lower() in _RESERVED:
        stem = f"file_{stem}"
    return stem
