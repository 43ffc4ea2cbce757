"""`RequestFiles` and the OpenAI content parts on their own: names, decoding, the size check
before decoding, the conversation's room, and URLs fetched only through the app's web rules."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from smolui.api.openai_content import message_files
from smolui.api.request_files import FilesRefused, GivenFile, RequestFiles
from smolui.uploads import UploadPolicy


def files(root: Path, fetch=None, **limits) -> RequestFiles:
    return RequestFiles(UploadPolicy(**limits), max_files=5, root=lambda: root, fetch=fetch)


def test_a_file_sent_without_a_name_is_named_after_its_label_and_type(tmp_path):
    parts = message_files([{"type": "text", "text": "hi"},
                           {"type": "file", "file": {"file_data": "data:text/csv,a%2Cb%0A1%2C2"}},
                           {"type": "file", "file": {"file_data": "data:text/plain;base64,aGk=",
                                                     "filename": "../../etc/notes.txt"}}])  # fmt: skip
    saved = files(tmp_path).save(parts)
    assert [Path(p).name for p in saved.paths] == ["file-1.csv", "notes.txt"]
    assert Path(saved.paths[0]).read_bytes() == b"a,b\n1,2"
    assert all(Path(p).parent.parent == tmp_path for p in saved.paths)  # a folder each
    saved.discard()
    assert list(tmp_path.iterdir()) == []


def test_an_over_large_file_is_refused_before_it_is_decoded(tmp_path):
    huge = GivenFile("file 1", "a.txt", "A" * 4_000_000, encoded=True)
    with pytest.raises(FilesRefused, match=r"file 1 is 2.9 MB, over the limit of 1.0 MB"):
        files(tmp_path, max_file_bytes=1024 * 1024).save([huge])
    assert list(tmp_path.iterdir()) == []  # nothing was written


def test_a_later_refused_file_takes_the_earlier_ones_with_it(tmp_path):
    good = GivenFile("file 1", "a.txt", base64.b64encode(b"fine").decode(), encoded=True)
    bad = GivenFile("file 2", "b.pdf", base64.b64encode(b"not a pdf").decode(), encoded=True)
    with pytest.raises(FilesRefused, match=r"file 2 \(b.pdf\) is refused: the content is not"):
        files(tmp_path).save([good, bad])
    assert list(tmp_path.iterdir()) == []


def test_the_conversation_s_room_is_checked_as_ingestion_checks_it(tmp_path):
    kept = tmp_path / "conversation"
    kept.mkdir()
    (kept / "old.txt").write_bytes(b"x" * 600)
    new = tmp_path / "new.txt"
    new.write_bytes(b"y" * 500)
    checks = files(tmp_path, max_session_bytes=1000, max_session_files=2)
    assert "would pass 1000 bytes in total" in checks.room_refusal(kept, [str(new)])
    (kept / "old.txt").write_bytes(b"x" * 10)
    assert checks.room_refusal(kept, [str(new)]) is None
    assert "holds 1 files and takes at most 2" in checks.room_refusal(kept, [str(new)] * 2)


def test_an_image_url_is_fetched_only_when_the_app_s_web_rules_allow_it(tmp_path):
    image = message_files([{"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}])
    with pytest.raises(FilesRefused, match="does not fetch"):
        files(tmp_path).save(image)
    from PIL import Image

    body = tmp_path / "made.png"
    Image.new("RGB", (4, 4)).save(body)
    fetched: list[str] = []

    def fetch(url: str) -> tuple[bytes, str]:
        fetched.append(url)
        return body.read_bytes(), "image/png"

    saved = files(tmp_path / "root", fetch=fetch).save(image)
    assert fetched == ["https://x.test/a.png"] and Path(saved.paths[0]).name == "image-1.png"
