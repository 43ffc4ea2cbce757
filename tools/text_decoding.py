"""Decode text files of unknown encoding: byte-order marks, UTF-8, then detection."""

from __future__ import annotations

import codecs
import re
import unicodedata

_DETECT_BYTES = 256 * 1024  # encoding detection is slow; a sample decides
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class DocumentError(Exception):
    """A document cannot be read; the message says why in plain words."""


def decode_text(data: bytes, name: str = "file", cut: bool = False) -> tuple[str, str]:
    """Decode bytes of unknown encoding: byte-order mark, then UTF-8, then detection.

    Args:
        data: The raw bytes.
        name: File name used in the error message.
        cut: The bytes are the start of a longer file (the last character may be cut).

    Returns:
        The text and the name of the encoding used.

    Raises:
        DocumentError: The bytes do not look like text.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace"), encoding
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        if cut and exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return data[: exc.start].decode("utf-8"), "utf-8"
    if _mostly_utf8(data):
        return data.decode("utf-8", errors="replace"), "utf-8"
    encoding = _detect(_TERMINAL_CODES.sub(b"", data[:_DETECT_BYTES]), name)
    codec = "cp1252" if encoding == "latin-1" else encoding  # the sample may have missed € or “
    return data.decode(codec, errors="replace"), encoding


# Terminal control sequences (colours, cursor moves, window titles) and the other C0
# controls a saved terminal session holds: noise to encoding detection, which would
# otherwise take a colourful log for a binary file.
_TERMINAL_CODES = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]|[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]"
)
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xf4][\x80-\xbf]+")
# A few bad bytes in UTF-8 text (a cut character, a stray byte a terminal printed) still
# leave it UTF-8 text: at most this share of its bytes may be invalid.
_UTF8_BAD_SHARE = 0.01


def _mostly_utf8(data: bytes) -> bool:
    """Whether the bytes are UTF-8 text with a few invalid bytes: they hold valid multi-byte
    characters, and invalid bytes are rare (single-byte code pages never pass: their
    accented letters are invalid UTF-8 one by one)."""
    sample = data[:_DETECT_BYTES]
    if not _UTF8_SEQUENCE.search(sample):
        return False
    text = sample.decode("utf-8", errors="replace")
    valid = sum(1 for char in text if ord(char) > 0x7F and char != "\ufffd")
    bad = text.count("\ufffd")
    return valid >= bad and bad <= max(2, len(sample) * _UTF8_BAD_SHARE)


def _detect(data: bytes, name: str) -> str:
    """Ask charset-normalizer, but prefer Windows-1252 when the text is Latin script anyway.

    charset-normalizer often names a Baltic or Central European code page for short French
    or German text; all of them decode to Latin letters, and Windows-1252 (a superset of
    Latin-1) is by far the most common of these in the wild.
    """
    from charset_normalizer import from_bytes

    if _western_text(data) and _isolated_accents(data.decode("cp1252")):
        return "cp1252" if re.search(rb"[\x80-\x9f]", data) else "latin-1"
    has_nul = b"\x00" in data
    candidates = [
        match
        for match in from_bytes(data)
        if has_nul or not match.encoding.startswith(("utf_16", "utf_32"))
    ]
    if not candidates or "\x00" in str(candidates[0]):
        raise DocumentError(f"{name} does not look like text (it may be a binary file).")
    best = candidates[0]
    if _western_text(data):
        same_score = [match for match in candidates if match.chaos <= best.chaos]
        if _latin_only(str(best)) or any(
            _WESTERN & set(match.could_be_from_charset) for match in same_score
        ):
            return "cp1252" if re.search(rb"[\x80-\x9f]", data) else "latin-1"
    return best.encoding


_WESTERN = {"cp1252", "latin_1", "iso8859_15"}


def _western_text(data: bytes) -> bool:
    """Whether the bytes read well as Windows-1252: no undefined bytes, no symbols inside words."""
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        return False
    return not re.search(r"[^\W\d_][^\w\s\x00-\x7f][^\W\d_]", text)  # "Za¿ó³æ": another code page


def _isolated_accents(text: str) -> bool:
    """Whether the non-ASCII characters are Latin letters standing alone or in pairs among
    ASCII ones, as accents do in "Zürich" or "Ça va?" (too short for detection to be sure).

    Text in a double-byte code page read as Windows-1252 gives runs of accented letters
    ("ÄãºÃ"), and Cyrillic or Greek single-byte text gives whole words of them.
    """
    runs = re.findall(r"[^\x00-\x7f]+", text)
    return (
        bool(runs)
        and all(run.isalpha() and _latin_only(run) for run in runs)
        and max(len(run) for run in runs) <= 2
        and any(len(run) == 1 for run in runs)
    )


def _latin_only(text: str) -> bool:
    return all(
        unicodedata.name(ch, "").startswith("LATIN")
        for ch in text
        if ch.isalpha() and not ch.isascii()
    )
