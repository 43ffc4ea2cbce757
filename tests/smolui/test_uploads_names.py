"""Safe stored names and clean display names for hostile upload names."""

from __future__ import annotations

import pytest

from smolui.uploads.names import MAX_NAME_BYTES, display_name, extension_of, safe_name

HOSTILE = [
    "../../etc/passwd.txt",
    "..\\..\\windows\\system32\\evil.txt",
    "/absolute/path/report.pdf",
    "line1\nline2\r\n.txt",
    "invoice\u202etxt.pdf",
    "$(rm -rf ~);`reboot`|&>x<'\"*?.txt",
    "  .hidden.md",
    "-rf.csv",
    "CON.txt",
    "zero\u200bwidth\u2066isolate.json",
    "a" * 300 + ".txt",
    "ｆｕｌｌｗｉｄｔｈ.txt",
    "...txt",
]


@pytest.mark.parametrize("original", HOSTILE)
def test_stored_names_are_plain_single_components(original):
    extension = extension_of(original)
    name = safe_name(original, extension, taken=set())
    assert name.endswith(extension)
    assert "/" not in name and "\\" not in name and name not in (".", "..")
    assert not name.startswith((".", "-"))
    assert all(ch.isalnum() or ch in "._-" for ch in name), name
    assert len(name) <= 100 and len(name.encode()) <= MAX_NAME_BYTES + len(extension)
    assert name.split(".")[0].lower() not in {"con", "prn", "aux", "nul"}


def test_path_components_are_dropped():
    assert safe_name("../../etc/passwd.txt", ".txt", set()) == "passwd.txt"
    assert safe_name("..\\..\\windows\\evil.txt", ".txt", set()) == "evil.txt"
    assert display_name("../../etc/passwd.txt") == "passwd.txt"


def test_bidi_override_cannot_disguise_the_extension():
    original = "invoice\u202etxt.exe"  # shows as "invoiceexe.txt" in a bidi-aware UI
    assert extension_of(original) == ".exe"
    assert "\u202e" not in display_name(original)
    assert display_name(original) == "invoicetxt.exe"


def test_newlines_and_shell_characters():
    assert display_name("line1\nline2.txt") == "line1 line2.txt"
    assert safe_name("line1\nline2.txt", ".txt", set()) == "line1_line2.txt"
    assert safe_name("$(rm -rf ~);`x`.txt", ".txt", set()) == "rm_-rf_x.txt"


def test_long_names_are_capped_in_characters_and_bytes():
    assert len(safe_name("a" * 300 + ".txt", ".txt", set())) == 100
    greek = safe_name("α" * 300 + ".pdf", ".pdf", set(), max_chars=250)
    assert len(greek.encode()) <= MAX_NAME_BYTES + 4 and greek.endswith("α.pdf")
    shown = display_name("b" * 300 + ".txt")
    assert len(shown) <= 120 and shown.endswith("b.txt") and "…" in shown


def test_collisions_get_a_suffix_case_insensitively():
    taken = {"Report.pdf"}
    second = safe_name("report.pdf", ".pdf", taken)
    assert second == "report-2.pdf"
    taken.add(second)
    assert safe_name("REPORT.PDF", ".pdf", taken) == "REPORT-3.pdf"
    long_taken = {safe_name("c" * 300 + ".txt", ".txt", set())}
    suffixed = safe_name("c" * 300 + ".txt", ".txt", long_taken)
    assert suffixed.endswith("-2.txt") and len(suffixed) <= 100


def test_names_without_a_usable_stem_or_extension():
    assert safe_name("....pdf", ".pdf", set()) == "file.pdf"
    assert extension_of("noextension") == ""
    assert extension_of(".bashrc") == ""
    assert extension_of("photo.JPG") == ".jpg"
    assert extension_of("report.pdf. . ") == ".pdf"
