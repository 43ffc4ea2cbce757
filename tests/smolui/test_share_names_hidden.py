"""A conversation shared without its attachments names them nowhere, however the agent wrote
the names (another case, no extension, inside a path, URL-encoded, in code, in an output line),
and ordinary words stay. The real share route over a real SQLite store, read as a visitor
reads it."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from smolui.api.share_routes import ShareLinks
from smolui.conversations.keeper import ConversationKeeper
from smolui.render.hidden_names import HIDDEN_NAME, hider, upload_names
from smolui.store import open_store

SALARIES = "Q3 Salaries_2025.xlsx"  # as the person sent it (gradio's cache keeps the name)
SALARIES_STORED = "Q3_Salaries_2025.xlsx"  # as the conversation's upload folder keeps it
# The name as an agent may write it back; every one of these must vanish from the share.
SPELLINGS = (
    "q3 salaries_2025.XLSX",  # another case
    "Q3 Salaries_2025",  # without the extension
    "/data/uploads/8c1e/Q3_Salaries_2025.xlsx",  # inside a path
    "Q3%20Salaries_2025.xlsx",  # URL-encoded
    "q3_salaries_2025",  # a variable named after it, in code
    "Q3_Salaries_2025-2.xlsx",  # the upload folder's copy of a name already taken
)


@pytest.fixture
def keeper(tmp_path: Path):
    store = open_store(tmp_path / "data", f"sqlite:///{tmp_path / 'store.db'}")
    keeper = ConversationKeeper(store, lambda: [str(tmp_path / "cache")])
    yield keeper
    store.close()


def attachment_chat(folder: Path, sent: str, said: list[str]) -> list[dict]:
    """A person's message with an attachment, as the chat keeps it (gradio's cached copy, by
    the name sent), then the agent's messages `said`."""
    folder.mkdir(parents=True, exist_ok=True)
    upload = folder / sent
    upload.write_bytes(b"data")
    return [
        {"role": "user", "content": "What do you make of this file?"},
        {"role": "user", "content": {"path": str(upload)}},
        *({"role": "assistant", "content": text} for text in said),
    ]


def shared_page(keeper: ConversationKeeper, chat: list[dict]) -> str:
    """The page a visitor of the share link reads (attachments not shared)."""
    keeper.store.save("alice", "c1", folder="fa", messages=chat, memory=None)
    links = ShareLinks(keeper, "public")
    app = FastAPI()
    app.include_router(links.router())
    response = TestClient(app).get(links.create("alice", "c1"))
    assert response.status_code == 200
    return response.text


def test_every_spelling_of_an_attachment_name_is_hidden(keeper, tmp_path):
    said = [
        f"I opened {SPELLINGS[0]} and read it.",
        f"In {SPELLINGS[1]} the totals are up.",
        f"```python\n{SPELLINGS[4]} = read_excel('{SPELLINGS[2]}')\nprint({SPELLINGS[4]})\n```",
        f"Download it again: [link](/files/{SPELLINGS[3]})",
        f"Execution logs:\nsaved a copy as {SPELLINGS[5]}",
        "The salaries rose in Q3 by 4%; the 2025 budget holds.",
    ]
    chat = attachment_chat(tmp_path / "cache" / "u1", SALARIES, said)
    page = shared_page(keeper, chat).casefold()
    for spelling in (SALARIES, SALARIES_STORED, *SPELLINGS):
        assert spelling.casefold() not in page, spelling
    assert "salaries_2025" not in page and "q3%20salaries" not in page
    assert page.count(HIDDEN_NAME) >= len(said) - 1
    # The words of the name, said as words, stay: only the name is hidden.
    assert "the salaries rose in q3 by 4%; the 2025 budget holds." in page


def test_a_short_name_hides_itself_but_not_the_word_it_is_made_of(keeper, tmp_path):
    said = [
        "I read a.txt: it holds a list and a date.",
        "Saved A.TXT as data.txt; see /uploads/5d/a.txt and a%2Etxt.",
        "Here is a summary of a txt file.",
    ]
    chat = attachment_chat(tmp_path / "cache" / "u2", "a.txt", said)
    page = shared_page(keeper, chat)
    assert "a.txt" not in page.casefold().replace("data.txt", "") and "a%2Etxt" not in page
    assert f"I read {HIDDEN_NAME}: it holds a list and a date." in page
    assert f"Saved {HIDDEN_NAME} as data.txt" in page, "another name that ends like it stays"
    assert "Here is a summary of a txt file." in page


def test_ordinary_words_and_phrases_that_a_name_is_made_of_stay():
    hide = hider(upload_names([
        {"role": "user", "content": {"path": "/u/report.pdf"}},
        {"role": "user", "content": {"path": "/u/my_notes.txt", "orig_name": "my notes.txt"}},
        {"role": "user", "content": {"path": "/u/2024.csv"}},
    ]))  # fmt: skip
    text = "The report says: here are my notes. Report.PDF and my-notes are attached."
    assert hide(text) == (
        f"The report says: here are my notes. {HIDDEN_NAME} and {HIDDEN_NAME} are attached."
    )
    assert hide("In 2024 sales rose; see 2024.CSV.") == f"In 2024 sales rose; see {HIDDEN_NAME}."
