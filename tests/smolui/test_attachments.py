"""Attachment notes and refused attachments in the chat, from a real ingestion of real files."""

from __future__ import annotations

from pathlib import Path

from smolui.render.attachments import (
    ATTACHED_ICON,
    REFUSED_ICON,
    attachment_notes,
    is_refused_chip,
    mark_refused,
    refused_chip,
)
from smolui.store.conversations import title_of
from smolui.uploads import UploadPolicy, ingest


def ingest_two(tmp_path: Path):
    good = tmp_path / "notes.txt"
    good.write_text("hello notes\n" * 50)
    bad = tmp_path / "evil.pdf"
    bad.write_text("not a pdf at all")
    folder = tmp_path / "session"
    folder.mkdir()
    result = ingest([(p.name, str(p)) for p in (good, bad)], folder, UploadPolicy())
    return good, bad, result


def test_notes_say_what_was_attached_and_why_a_file_was_refused(tmp_path):
    _, _, result = ingest_two(tmp_path)
    attached, refused = (note["content"] for note in attachment_notes(result))
    assert attached.startswith(f"{ATTACHED_ICON} Attached notes.txt (")
    assert "600 bytes" in attached and "text" in attached.lower()
    assert refused.startswith(f"{REFUSED_ICON} Could not attach evil.pdf: ")
    assert "not a PDF" in refused


def test_a_refused_attachment_is_struck_through_in_the_visitors_message(tmp_path):
    good, bad, result = ingest_two(tmp_path)
    history = [
        {"role": "user", "content": {"path": "/old/evil.pdf"}},  # an earlier turn: untouched
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": {"path": str(good)}},
        {"role": "user", "content": [{"type": "file", "file": {"path": str(bad)}}]},
        {"role": "user", "content": "what are these"},
    ]
    marked = mark_refused(history, result.refused)
    assert marked[:3] == history[:3] and marked[4] == history[4]
    chip = refused_chip("evil.pdf", "the content is not a PDF")
    assert marked[3] == {"role": "user", "content": [chip]}
    assert title_of(marked) == "what are these", "the chip is not what the visitor wrote"
    assert is_refused_chip(marked[3]["content"]) and not is_refused_chip("what are these")
    assert is_refused_chip([{"type": "text", "text": chip}])
    assert mark_refused(history, []) is history


def test_odd_file_names_cannot_inject_markup():
    chip = refused_chip("a*b_[x](y).pdf", "too big")
    assert "\\*" in chip and "\\[" in chip and chip.endswith("· refused: too big")
