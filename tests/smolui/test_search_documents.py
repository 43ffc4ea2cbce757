"""The conversation search finds words inside uploaded documents (SQLite and PostgreSQL).

The documents are real files read by the upload ingestion, saved through the conversation
writer, as a turn saves them.
"""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from smolui.conversations.writer import ConversationWriter
from smolui.sessions import Session
from smolui.store import UploadInfo, open_store
from smolui.store.schema import UploadText
from smolui.store.search import DOCUMENT_CHARS, PIECE_CHARS, document_pieces
from smolui.uploads.ingest import ingest
from tests.samples import write_pdf

OWNER = "alice"
CHAT = [{"role": "user", "content": "Summarise the attached report."},
        {"role": "assistant", "content": "It covers the second quarter."}]  # fmt: skip


@pytest.fixture
def store(store_url, tmp_path):
    store = open_store(tmp_path / "data", store_url)
    yield store
    store.close()


def save_with_pdf(store, tmp_path, conversation_id: str, pages: list[str]) -> None:
    """One conversation whose user attached a PDF holding `pages`, saved as a turn saves it."""
    session = Session(id=conversation_id, folder=f"f-{conversation_id}",
                      upload_root=store.upload_root, make_agent=lambda folder: None,
                      owner=OWNER)  # fmt: skip
    pdf = write_pdf(tmp_path / f"{conversation_id}.pdf", pages)
    result = ingest([("report.pdf", pdf)], session.upload_dir)
    assert [f.display_name for f in result.accepted] == ["report.pdf"], result.refused
    session.files.extend(result.accepted)
    writer = ConversationWriter(lambda: store, lambda: [])
    assert writer.write(session, CHAT, "done") == "saved"


def found(store, query: str) -> list[str]:
    return [c.id for c in store.list(OWNER, query)]


def stored_pieces(store) -> int:
    with store.session() as session:
        return session.scalar(select(func.count()).select_from(UploadText))


def test_a_word_only_inside_an_uploaded_pdf_finds_its_conversation(store, tmp_path):
    save_with_pdf(store, tmp_path, "c1", ["Greenhouse log", "Bay three used zeolite filters."])
    assert store.save(OWNER, "c2", folder="f-c2", messages=CHAT, memory=None)
    assert found(store, "zeolite") == ["c1"]
    assert found(store, "zeol") == ["c1"], "words match as prefixes, as in messages"
    assert found(store, "zeolite greenhouse") == ["c1"], "every word, across pages"
    assert found(store, "xylophone") == []
    assert found(store, "zeolite xylophone") == []
    assert sorted(found(store, "quarter")) == ["c1", "c2"], "messages are still searched"
    assert store.list("mallory", "zeolite") == [], "nobody else's documents"


def test_deleting_the_conversation_deletes_its_document_text(store, tmp_path):
    save_with_pdf(store, tmp_path, "c1", ["The lagoon survey counted herons."])
    save_with_pdf(store, tmp_path, "c2", ["The lagoon survey counted egrets."])
    assert stored_pieces(store) == 2
    assert store.delete(OWNER, "c1")
    assert stored_pieces(store) == 1
    assert found(store, "herons") == [] and found(store, "egrets") == ["c2"]
    assert store.delete_all(OWNER) == 1
    assert stored_pieces(store) == 0 and found(store, "egrets") == []


def test_a_cleared_chat_forgets_its_documents_text(store):
    upload = UploadInfo("a.txt", "text", 5, "ab" * 32, "a.txt", text="marmalade recipe")
    assert store.save(OWNER, "c1", folder="f-c1", messages=CHAT, memory=None, uploads=[upload])
    assert found(store, "marmalade") == ["c1"]
    assert store.save(OWNER, "c1", folder="f-c1", messages=CHAT, memory=None,
                      forget_uploads=True)  # fmt: skip
    assert found(store, "marmalade") == [] and stored_pieces(store) == 0


def test_a_long_document_is_kept_in_pieces_up_to_the_cap(store):
    # Words no database index refuses however long the text, and a NUL PostgreSQL refuses.
    text = " ".join(f"w{n:07d}" for n in range(DOCUMENT_CHARS // 9 + 1000)) + " tailword"
    text = "\x00" + text
    upload = UploadInfo("big.txt", "text", len(text), "ab" * 32, "big.txt", text=text)
    assert store.save(OWNER, "c1", folder="f-c1", messages=CHAT, memory=None, uploads=[upload])
    assert found(store, "w0000001") == ["c1"]
    assert found(store, "w0099999") == ["c1"], "a word near the end of the kept part"
    assert found(store, "tailword") == [], "past the cap: not kept"
    assert stored_pieces(store) == len(document_pieces(text)) > 1


def test_pieces_keep_words_whole():
    text = ("alpha " * (PIECE_CHARS // 3))[:-1]
    pieces = document_pieces(text)
    assert "".join(pieces) == text and len(pieces) > 1
    assert all(len(piece) <= PIECE_CHARS for piece in pieces)
    assert all(piece.split(" ")[0] == "alpha" for piece in pieces)
    assert document_pieces("") == [] and document_pieces("  \n ") == []
    assert document_pieces("no\x00nul \ud800 here") == ["no nul ? here"]
