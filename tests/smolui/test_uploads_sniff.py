"""Content sniffing: the first bytes must match the extension."""

from __future__ import annotations

import zipfile

import pytest

from smolui.uploads.sniff import ContentMismatch, check_content, describe


def write(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"%PDF-1.7\n...", "pdf"),
        (b"\n\n%PDF-1.4 junk before the header is tolerated by readers", "pdf"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "png"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "jpeg"),
        (b"GIF89a\x01\x00", "gif"),
        (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "webp"),
        ("plain text, café\n".encode(), "text"),
        ("Grüße".encode("utf-16"), "text"),
        ("no byte-order mark".encode("utf-16-le"), "text"),
        (b"MZ is a fine start for a text file", "text"),
        (b"<!doctype html><p>saved page</p>", "text"),
    ],
)
def test_matching_content_passes(tmp_path, data, kind):
    check_content(write(tmp_path, "f", data), kind)


@pytest.mark.parametrize(
    ("data", "kind", "message"),
    [
        (b"\x7fELF\x02\x01\x01\x00", "pdf", "a Linux program, not a PDF"),
        (b"MZ\x90\x00\x03\x00\x00\x00", "jpeg", "a Windows program, not a JPEG image"),
        (b"\xcf\xfa\xed\xfe\x07\x00", "png", "a macOS program"),
        (b"<html><script>alert(1)</script>", "png", r"a web page \(HTML\), not a PNG image"),
        (b"%PDF-1.7", "docx", "a PDF, not a Word document"),
        (b"\x89PNG\r\n\x1a\n", "text", "a PNG image, not a text file"),
        (b"\x00\x01\x02\x03\x00\x00\x00\xff" * 20, "text", "not a text file"),
        (b"just words", "pdf", "not a PDF"),
        (b"", "gif", "empty"),
    ],
)
def test_mismatched_content_is_named(tmp_path, data, kind, message):
    with pytest.raises(ContentMismatch, match=message):
        check_content(write(tmp_path, "f", data), kind)


def test_a_zip_is_a_docx_only_with_word_parts(tmp_path):
    path = tmp_path / "archive.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(ContentMismatch, match="zip archive, not a Word document"):
        check_content(path, "docx")
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<w:document/>")
    check_content(path, "docx")


def test_describe_unknown_bytes():
    assert describe(b"hello") is None
    assert describe(b"\x00\x00\x00\x18ftypheic") == "a video or HEIC image"
