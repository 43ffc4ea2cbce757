"""ingest() end to end on real files: normal uploads, hostile uploads, caps, session folders."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from smolui.uploads import UploadPolicy, delete_session_folder, ingest, session_folder
from tests.samples import report_pages, write_docx, write_pdf

FRENCH = "Résumé du café à Zürich\nDeuxième ligne, très élégante.\n"


@pytest.fixture
def incoming(tmp_path) -> Path:
    """Where the "browser" files are (Gradio's temporary folder in the app)."""
    folder = tmp_path / "incoming"
    folder.mkdir()
    return folder


@pytest.fixture
def session(tmp_path) -> Path:
    return session_folder(tmp_path / "uploads", "session-0123456789")


def snapshot(root: Path, skip: Path) -> dict[str, tuple[int, int]]:
    """Every file under root except those under skip, with size and modification time."""
    return {
        str(path): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in root.rglob("*")
        if path.is_file() and skip not in path.parents
    }


def image_bytes(fmt: str, size=(120, 80), color="orange") -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, fmt)
    return buffer.getvalue()


def hostile_files(folder: Path) -> dict[str, Path]:
    """The hostile or broken uploads of the issue, by the name the browser sends."""
    whole = write_pdf(folder / "whole.pdf", report_pages(4, lines_per_page=5)).read_bytes()
    files = {
        "truncated.pdf": whole[: len(whole) // 2],
        "empty.txt": b"",
        "not_a_zip.docx": b"Dear Sir, this is plain text with a .docx name.",
        "setup.pdf": Path("/bin/true").read_bytes(),
        "invoice.pdf": b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + b"\x00" * 200,
        "photo.png": image_bytes("JPEG"),
        "virus.exe": b"MZ\x90\x00",
        "README": b"no extension",
    }
    paths = {}
    for index, (name, data) in enumerate(files.items()):
        paths[name] = folder / f"tmp{index}"
        paths[name].write_bytes(data)
    bomb = write_docx(folder / "bomb.docx", ["Innocent title"])
    with zipfile.ZipFile(bomb, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/media/filler.bin", b"\0" * (40 * 1024 * 1024))
    paths["bomb.docx"] = bomb
    paths["bomb.png"] = _png_declaring(folder / "tmp_bomb", 30000, 30000)
    cut = image_bytes("JPEG", size=(400, 300))
    paths["cut.jpg"] = folder / "tmp_cut"
    paths["cut.jpg"].write_bytes(cut[: len(cut) // 2])
    return paths


def _png_declaring(path: Path, width: int, height: int) -> Path:
    import zlib

    data = bytearray(image_bytes("PNG", size=(8, 8)))
    data[16:24] = struct.pack(">II", width, height)
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(data[12:29])))
    path.write_bytes(bytes(data))
    return path


def test_normal_documents_and_images_are_accepted(incoming, session):
    files = [
        (
            "report.pdf",
            write_pdf(incoming / "a", ["Annual report 2024\nRevenue grew 12%.", "Page two"]),
        ),
        (
            "memo.docx",
            write_docx(incoming / "b", ["Memo", "Meet at noon."], tables=[[["Room", "4B"]]]),
        ),
        ("notes.txt", incoming / "c"),
        ("data.csv", incoming / "d"),
        ("photo.jpg", incoming / "e"),
        ("chart.png", incoming / "f"),
    ]
    (incoming / "c").write_bytes(FRENCH.encode("utf-16"))
    (incoming / "d").write_text("city,visitors\nParis,12\n")
    (incoming / "e").write_bytes(image_bytes("JPEG", size=(3000, 1500)))
    (incoming / "f").write_bytes(image_bytes("PNG"))
    result = ingest(files, session)
    assert result.refused == []
    assert [item.display_name for item in result.accepted] == [name for name, _ in files]
    assert all(
        item.stored_path.parent == session and item.stored_path.is_file()
        for item in result.accepted
    )
    pdf, docx, text, csv, jpg, png = result.accepted
    assert (pdf.kind, pdf.pages, pdf.first_lines.splitlines()[0]) == (
        "pdf",
        2,
        "Annual report 2024",
    )
    assert docx.kind == "docx" and "Room | 4B" in docx.first_lines
    assert text.label == "utf-16 text file" and text.first_lines.startswith("Résumé du café")
    assert (csv.kind, csv.table.columns, csv.table.rows) == ("table", ["city", "visitors"], 1)
    assert (jpg.width, jpg.height, jpg.kind) == (3000, 1500, "image")
    assert len(result.images) == 2 and result.images[0].size == (1536, 768)
    for item in result.accepted:
        assert f'"{item.display_name}"' in result.note and str(item.stored_path) in result.note
    assert "2 pages" in result.note and "> Revenue grew 12%." in result.note
    assert "shown to you with this message" in result.note
    assert result.task("Summarize it").endswith("\n\nSummarize it")
    assert result.user_messages()[0].startswith("Attached report.pdf (PDF, 2 pages")


def test_hostile_files_get_clear_reasons_and_nothing_escapes(tmp_path, incoming, session):
    paths = hostile_files(incoming)
    before = snapshot(tmp_path, session)
    result = ingest(list(paths.items()), session)
    reasons = {item.display_name: item.reason for item in result.refused}
    assert set(reasons) == set(paths), result.accepted
    assert "damaged or incomplete" in reasons["truncated.pdf"]
    assert "empty (0 bytes)" in reasons["empty.txt"]
    assert "not a Word document" in reasons["not_a_zip.docx"]
    assert "a Linux program, not a PDF" in reasons["setup.pdf"]
    assert "a Windows program, not a PDF; renamed files are refused" in reasons["invoice.pdf"]
    assert "a JPEG image, not a PNG image" in reasons["photo.png"]
    assert ".exe files are not accepted" in reasons["virus.exe"]
    assert "no extension" in reasons["README"]
    assert "zip bomb" in reasons["bomb.docx"]
    assert "decompression bomb" in reasons["bomb.png"]
    assert "truncated or damaged" in reasons["cut.jpg"]
    assert result.accepted == [] and result.images == []
    assert list(session.iterdir()) == []  # refused files leave nothing behind
    assert snapshot(tmp_path, session) == before
    assert all(line.startswith("Could not attach ") for line in result.user_messages())
    assert 'Not attached: "setup.pdf"' in result.note


def test_special_documents_are_accepted_with_a_note(incoming, session):
    files = [
        ("locked.pdf", write_pdf(incoming / "a", ["secret"], password="pw")),
        ("book.pdf", write_pdf(incoming / "b", report_pages(2000, lines_per_page=2))),
        ("latin.txt", incoming / "c"),
    ]
    (incoming / "c").write_bytes(FRENCH.encode("latin-1"))
    # The page cap is what this checks: a time budget no busy machine reaches.
    result = ingest(files, session, UploadPolicy(max_pages=30, time_budget_s=600))
    locked, book, latin = result.accepted
    assert "password-protected" in locked.note and "password-protected" in result.note
    assert book.pages == 2000 and "first 30 of 2,000 pages" in book.note
    assert latin.label == "latin-1 text file" and latin.first_lines.startswith("Résumé du café")


def test_hostile_names_stay_inside_the_session_folder(tmp_path, incoming, session):
    names = [
        "../../outside.txt",
        "..\\..\\evil.txt",
        "a" * 300 + ".txt",
        "two\nlines\r\n.txt",
        "gnp\u202etxt.md",
        "$(touch pwned);`id`|x.txt",
        "same.txt",
        "same.txt",
    ]
    files = []
    for index, name in enumerate(names):
        path = incoming / f"t{index}"
        path.write_text(f"file number {index}\n")
        files.append((name, path))
    before = snapshot(tmp_path, session)
    result = ingest(files, session)
    assert result.refused == []
    stored = [item.stored_path for item in result.accepted]
    assert all(path.parent == session for path in stored)
    assert len({path.name for path in stored}) == len(names)
    assert [path.name for path in stored[-2:]] == ["same.txt", "same-2.txt"]
    assert [item.display_name for item in result.accepted[-2:]] == ["same.txt", "same.txt"]
    assert "\u202e" not in result.note and "\n.txt" not in result.note
    assert all(len(path.name) <= 100 for path in stored)
    for index, path in enumerate(stored):
        assert path.read_text() == f"file number {index}\n"
    assert snapshot(tmp_path, session) == before
    assert not (tmp_path / "outside.txt").exists() and not (tmp_path / "pwned").exists()


def test_size_and_count_caps_span_the_whole_session(incoming, session):
    policy = UploadPolicy(max_file_bytes=1000, max_session_bytes=1500, max_session_files=3)
    for name, size in (("big", 1001), ("a", 600), ("b", 600), ("c", 600), ("d", 10), ("e", 10)):
        (incoming / name).write_bytes(b"x" * size)
    first = ingest(
        [("big.txt", incoming / "big"), ("a.txt", incoming / "a"), ("b.txt", incoming / "b")],
        session,
        policy,
    )
    assert [item.display_name for item in first.accepted] == ["a.txt", "b.txt"]
    assert "over the limit of 1000 bytes per file" in first.refused[0].reason
    second = ingest(
        [("c.txt", incoming / "c"), ("d.txt", incoming / "d"), ("a.txt", incoming / "e")],
        session,
        policy,
    )
    assert "would exceed 1 KB in total" in second.refused[0].reason
    assert [item.stored_path.name for item in second.accepted] == ["d.txt"]
    assert "already holds 3 files" in second.refused[1].reason


def test_text_only_models_get_no_images_and_a_note_saying_so(incoming, session):
    (incoming / "p").write_bytes(image_bytes("PNG"))
    result = ingest([("pic.png", incoming / "p")], session, images_to_model=False)
    assert result.images == [] and result.accepted[0].kind == "image"
    assert "Open it with code" in result.note


def test_a_follow_up_message_after_refusals_is_answered(incoming, session):
    from agents import CodeAgent, ScriptedModel

    bad = ingest(list(hostile_files(incoming).items()), session)
    assert bad.accepted == []
    (incoming / "ok").write_bytes(image_bytes("PNG"))
    good = ingest(
        [("chart.png", incoming / "ok"), ("r.pdf", write_pdf(incoming / "r", ["Total: 42"]))],
        session,
    )
    model = ScriptedModel(["<code>\nfinal_answer('42')\n</code>"])
    agent = CodeAgent(tools=[], model=model)
    answer = agent.run(good.task("What is the total?"), images=good.images)
    assert str(answer) == "42"
    sent = str(model.calls[0])
    assert "What is the total?" in sent and '"r.pdf"' in sent and "> Total: 42" in sent
    assert sent.count("data:image/png;base64,") == 1  # the chart, and only the image


def test_session_folders_are_checked_and_deleted_safely(tmp_path):
    root = tmp_path / "uploads"
    with pytest.raises(ValueError):
        session_folder(root, "../escape-attempt")
    with pytest.raises(ValueError):
        session_folder(root, "short")
    folder = session_folder(root, "session-abcdefgh")
    keep = tmp_path / "precious.txt"
    keep.write_text("must survive")
    (folder / "link.txt").symlink_to(keep)
    (folder / "sub").mkdir()
    (folder / "sub" / "f.txt").write_text("x")
    assert delete_session_folder(root, "session-abcdefgh")
    assert not folder.exists() and keep.read_text() == "must survive"
    assert not delete_session_folder(root, "session-abcdefgh")
    other = tmp_path / "elsewhere"
    other.mkdir()
    (root / "session-linked00").symlink_to(other)
    with pytest.raises(ValueError):
        delete_session_folder(root, "session-linked00")
    assert other.exists()


def test_emptying_a_session_folder_keeps_it_and_follows_no_links(tmp_path):
    from smolui.uploads.folders import empty_session_folder

    root = tmp_path / "uploads"
    folder = session_folder(root, "session-abcdefgh")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("must survive")
    (folder / "linked").symlink_to(outside)
    (folder / "sub").mkdir()
    (folder / "sub" / "f.txt").write_text("x")
    (folder / "a.txt").write_text("y")
    before = folder.stat().st_ino
    empty_session_folder(root, "session-abcdefgh")
    assert list(folder.iterdir()) == [] and folder.stat().st_ino == before
    assert (outside / "precious.txt").read_text() == "must survive"
    (root / "session-linked00").symlink_to(outside)
    with pytest.raises(ValueError):
        empty_session_folder(root, "session-linked00")
    assert (outside / "precious.txt").exists()


def test_policy_rejects_unknown_extensions():
    from agents.errors import AgentConfigError

    with pytest.raises(AgentConfigError, match=".exe"):
        UploadPolicy(allowed_extensions=(".pdf", ".exe"))
    assert UploadPolicy(allowed_extensions=(".pdf",)).file_types == [".pdf"]


def test_missing_temporary_file_is_refused(incoming, session):
    result = ingest([("gone.txt", incoming / "never-written")], session)
    assert "did not arrive" in result.refused[0].reason


def test_unexpected_parser_errors_refuse_only_that_file(incoming, session, monkeypatch):
    import tools.document_reader as reader

    def broken(*args, **kwargs):
        raise RuntimeError("parser bug")

    monkeypatch.setattr(reader, "read_document", broken)
    (incoming / "t").write_text("hello")
    (incoming / "p").write_bytes(image_bytes("PNG"))
    result = ingest([("t.txt", incoming / "t"), ("p.png", incoming / "p")], session)
    assert "unexpected error" in result.refused[0].reason
    assert [item.display_name for item in result.accepted] == ["p.png"]
    assert sorted(path.name for path in session.iterdir()) == ["p.png"]


def test_copy_keeps_the_source_untouched(incoming, session):
    source = write_pdf(incoming / "src", ["keep me"])
    original = source.read_bytes()
    result = ingest([("k.pdf", source)], session)
    assert source.read_bytes() == original == result.accepted[0].stored_path.read_bytes()
