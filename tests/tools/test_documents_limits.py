"""search_document's answer is capped before it is built, whatever max_results the code asks."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from tools.documents import MAX_SEARCH_RESULTS, SearchDocumentTool


@pytest.fixture
def uploads(tmp_path: Path) -> Path:
    # 300 KB of one short word: 150,000 matches, each with 500 characters of context.
    (tmp_path / "words.txt").write_text("a " * 150_000)
    (tmp_path / "notes.txt").write_text("alpha beta\n" * 30 + "the key is 42\n")
    return tmp_path


def test_huge_max_results_gets_a_capped_answer(uploads: Path) -> None:
    tool = SearchDocumentTool(uploads)
    tracemalloc.start()
    try:
        answer = tool(path="words.txt", query="a", max_results=10**9)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer.startswith("150000 match(es)")
    assert len(answer) <= tool.max_characters + 500
    assert "narrower" in answer  # says why it stopped and what to do
    assert answer.count("[part ") <= MAX_SEARCH_RESULTS
    assert peak < 20_000_000, f"searching allocated {peak / 1e6:.0f} MB"


def test_max_results_above_the_cap_is_capped(uploads: Path) -> None:
    answer = SearchDocumentTool(uploads, context_chars=5)(
        path="words.txt", query="a", max_results=MAX_SEARCH_RESULTS * 10
    )
    assert answer.count("[part ") == MAX_SEARCH_RESULTS
    assert f"showing the first {MAX_SEARCH_RESULTS}" in answer


def test_small_searches_are_unchanged(uploads: Path) -> None:
    answer = SearchDocumentTool(uploads)(path="notes.txt", query="key is")
    assert answer.startswith("1 match(es) for 'key is' in notes.txt:")
    assert "**key is**" in answer and "narrower" not in answer
