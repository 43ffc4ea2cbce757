"""`web_search`: search the web with DuckDuckGo (through the `ddgs` package)."""

from __future__ import annotations

import logging
from typing import Any

from tools.base import Tool, ToolDefinitionError, ToolExecutionError
from tools.rate_limit import RateLimiter

logger = logging.getLogger(__name__)


class WebSearchTool(Tool):
    """Searches the web and returns the top results as Markdown (title, link, snippet).

    Args:
        max_results: How many results to return.
        timeout: Seconds to wait for the search engine.
        proxy: A proxy URL for the search requests (also read from `DDGS_PROXY`).
        backend: The `ddgs` backend(s): "duckduckgo" (default), "auto" (several engines), ...
        engine: smolagents' name for `backend` ("duckduckgo", "bing").
        rate_limit: Most searches per second (None: no limit).
        **kwargs: Extra arguments for `ddgs.DDGS(...)`.
    """

    name = "web_search"
    description = (
        "Searches the web with DuckDuckGo and returns the top results: title, link and a "
        "short snippet. Use visit_webpage to read a result in full."
    )
    inputs = {"query": {"type": "string", "description": "What to search for."}}
    output_type = "string"

    def __init__(
        self,
        max_results: int = 10,
        timeout: int = 10,
        proxy: str | None = None,
        backend: str = "duckduckgo",
        engine: str | None = None,
        rate_limit: float | None = None,
        **kwargs: Any,
    ):
        super().__init__()
        self.max_results = max_results
        self.timeout = timeout
        self.proxy = proxy
        self.backend = engine or backend
        if rate_limit is not None and rate_limit <= 0:
            raise ToolDefinitionError(
                "rate_limit must be a positive number of searches per second."
            )
        self.rate_limiter = RateLimiter(rate_limit)
        self.ddgs_kwargs = kwargs

    @property
    def min_interval(self) -> float:
        """Seconds between two searches (0: no limit)."""
        return self.rate_limiter.min_interval

    def forward(self, query: str) -> str:
        if not query.strip():
            raise ToolExecutionError("web_search needs a non-empty query.")
        try:
            from ddgs import DDGS
        except ImportError as error:
            raise ToolExecutionError(
                "Web search is not available: the 'ddgs' package is not installed "
                "(pip install ddgs)."
            ) from error
        self.rate_limiter.wait()
        try:
            client = DDGS(proxy=self.proxy, timeout=self.timeout, **self.ddgs_kwargs)
            results = client.text(query, max_results=self.max_results, backend=self.backend)
        except Exception as error:  # ddgs raises many types; all mean "no results reached us"
            raise ToolExecutionError(_explain(error)) from error
        if not results:
            return f"No results found for {query!r}. Try a shorter or different query."
        return format_results(query, results)


def _explain(error: Exception) -> str:
    text = f"{type(error).__name__}: {error}".strip()
    if "No results found" in text or "NoResults" in type(error).__name__:
        return "The web search found no results. Try a shorter or different query."
    return (
        "The web search failed: the search engine could not be reached "
        f"({text[:300]}). This machine may be offline or rate-limited; "
        "answer from what you already know or use another tool."
    )


def format_results(query: str, results: list[dict[str, Any]]) -> str:
    """Render search results as a Markdown list.

    Args:
        query: The query, for the heading.
        results: Dicts with `title`, `href` (or `url`) and `body`.
    """
    lines = [f"## Search results for {query!r}", ""]
    for item in results:
        title = item.get("title") or "(no title)"
        link = item.get("href") or item.get("url") or ""
        lines.append(f"- [{title}]({link})")
        body = (item.get("body") or "").strip()
        if body:
            lines.append(f"  {body}")
    return "\n".join(lines)


# smolagents' name for the same tool.
DuckDuckGoSearchTool = WebSearchTool
