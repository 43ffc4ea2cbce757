"""web_search: offline it fails with a clear error; a real search only with the network."""

from __future__ import annotations

import socket

import pytest

from tools.base import ToolExecutionError
from tools.web_search import WebSearchTool, format_results


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_search_engine_is_a_clear_error() -> None:
    # ddgs talks through a Rust HTTP client that the socket guard cannot see, so the test
    # routes it through a proxy port where nothing listens: the same failure as offline.
    tool = WebSearchTool(proxy=f"http://127.0.0.1:{_closed_port()}", timeout=5)
    with pytest.raises(ToolExecutionError) as caught:
        tool(query="smolagents")
    message = str(caught.value)
    assert "could not be reached" in message and "offline" in message


def test_empty_query_is_refused() -> None:
    with pytest.raises(ToolExecutionError, match="non-empty query"):
        WebSearchTool()(query="   ")


def test_results_are_markdown_links() -> None:
    text = format_results(
        "python", [{"title": "Python", "href": "https://python.org", "body": "The language."}]
    )
    assert "- [Python](https://python.org)" in text and "The language." in text


@pytest.mark.network
def test_real_search_returns_links() -> None:
    text = WebSearchTool(max_results=3)(query="Hugging Face smolagents")
    assert text.count("](http") >= 1
