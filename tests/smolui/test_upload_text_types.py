"""The text files people attach (logs, notes, configuration, code) are one list that the file
chooser, the upload checks and the README share (issue 31: a saved terminal log named .log
was refused while the same content named .txt was read)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from smolui.uploads import UploadPolicy, check_upload, ingest
from smolui.uploads.policy import DATA_KINDS, IMAGE_KINDS, TEXT_EXTENSIONS
from tests.e2e.test_first_screen_e2e import TERMINAL_LOG

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize("extension", [".log", ".yaml", ".yml", ".py", ".tsv", ".md", ".json"])
def test_the_usual_text_files_are_offered_and_read(tmp_path: Path, extension: str):
    name = f"notes{extension}"
    path = tmp_path / name
    path.write_bytes(TERMINAL_LOG if extension == ".log" else b"a\tb\nkey: 1\n")
    assert extension in UploadPolicy().file_types  # the box's file chooser offers it
    assert check_upload(name, str(path), UploadPolicy()) is None
    result = ingest([(name, path)], tmp_path / "conversation", UploadPolicy())
    assert not result.refused and result.accepted[0].display_name == name


def test_a_program_named_log_is_still_refused(tmp_path: Path):
    path = tmp_path / "terminal.log"
    path.write_bytes(b"MZ\x90\x00\x03\x00\x00\x00\x04\x00" * 30)
    assert "Windows program" in (check_upload("terminal.log", str(path), UploadPolicy()) or "")


def test_the_readme_lists_the_extensions_the_checks_accept():
    text = README.read_text(encoding="utf-8").split("## Uploads", 1)[1]
    lead = " ".join(text.split("\n\n", 2)[1].split())  # the section's first paragraph
    listed = {f".{name}" for name in re.findall(r"\.([a-z]+)", lead.split(" files in", 1)[0])}
    assert listed == set(TEXT_EXTENSIONS) | {".pdf", ".docx"} | set(DATA_KINDS) | set(IMAGE_KINDS)
    assert set(UploadPolicy().file_types) == listed
