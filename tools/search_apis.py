"""Web search through keyed APIs: `GoogleSearchTool` (SerpAPI or Serper) and
`ApiWebSearchTool` (Brave Search by default, or any endpoint that answers JSON)."""

from __future__ import annotations

import os
from typing import Any

from agents.errors import AgentConfigError
from tools.base import Tool, ToolExecutionError
from tools.rate_limit import RateLimiter
from tools.web_search import format_results

# provider -> (endpoint, environment variable with the key, JSON key of the results)
_GOOGLE = {
    "serpapi": ("https://serpapi.com/search.json", "SERPAPI_API_KEY", "organic_results"),
    "serper": ("https://google.serper.dev/search", "SERPER_API_KEY", "organic"),
}
_BRAVE = "https://api.search.brave.com/res/v1/web/search"


def _key(api_key: str | None, variable: str, who: str) -> str:
    key = api_key or os.environ.get(variable, "")
    if not key:
        raise AgentConfigError(f"{who} needs an API key: set {variable} or pass api_key=.")
    return key


def _get_json(url: str, params: dict[str, Any], headers: dict[str, str], timeout: float) -> Any:
    import requests

    try:
        response = requests.get(url, params=params, headers=headers, timeout=timeout)
        response.raise_for_status()
        return response.json()
    except Exception as error:  # HTTP, network and JSON errors alike
        raise ToolExecutionError(
            f"The search API at {url} failed ({type(error).__name__}: {str(error)[:300]}). "
            "Answer from what you know or try another tool."
        ) from error


class GoogleSearchTool(Tool):
    """Google results through SerpAPI or Serper.

    Args:
        provider: "serpapi" (key in SERPAPI_API_KEY) or "serper" (SERPER_API_KEY).
        api_key: The key, instead of the environment variable.
        max_results: How many results to return.
        timeout: Seconds to wait for the API.
        endpoint: Another URL for the same API (a proxy or a test server).
    """

    name = "web_search"
    description = "Searches Google and returns the top results: title, link and snippet."
    inputs = {
        "query": {"type": "string", "description": "What to search for."},
        "filter_year": {
            "type": "integer",
            "description": "Only results from this year.",
            "nullable": True,
        },
    }
    output_type = "string"

    def __init__(
        self,
        provider: str = "serpapi",
        api_key: str | None = None,
        max_results: int = 10,
        timeout: float = 20.0,
        endpoint: str | None = None,
    ):
        super().__init__()
        if provider not in _GOOGLE:
            raise AgentConfigError(
                f"provider must be one of {', '.join(_GOOGLE)}, not {provider!r}."
            )
        default_endpoint, variable, self.results_key = _GOOGLE[provider]
        self.provider = provider
        self.endpoint = endpoint or default_endpoint
        self.api_key = _key(api_key, variable, f"GoogleSearchTool({provider!r})")
        self.max_results = max_results
        self.timeout = timeout

    def forward(self, query: str, filter_year: int | None = None) -> str:
        params: dict[str, Any] = {"q": query, "api_key": self.api_key}
        if self.provider == "serpapi":
            params.update(engine="google", google_domain="google.com")
        if filter_year is not None:
            params["tbs"] = f"cdr:1,cd_min:01/01/{filter_year},cd_max:12/31/{filter_year}"
        data = _get_json(self.endpoint, params, {}, self.timeout)
        items = (data or {}).get(self.results_key) or []
        if not items:
            year = f" in {filter_year}" if filter_year is not None else ""
            return f"No results found for {query!r}{year}. Try a broader query."
        results = [
            {"title": i.get("title"), "href": i.get("link"), "body": i.get("snippet")}
            for i in items[: self.max_results]
        ]
        return format_results(query, results)


class ApiWebSearchTool(Tool):
    """Web results from a JSON search API; Brave Search by default.

    Args:
        endpoint: The API URL (default: Brave Search).
        api_key: The key (default: the `api_key_name` environment variable).
        api_key_name: The environment variable holding the key (default: BRAVE_API_KEY).
        headers: Request headers (default: Brave's `X-Subscription-Token` with the key).
        params: Extra query parameters (default: `{"count": 10}`).
        rate_limit: Most searches per second (None: no limit).
        timeout: Seconds to wait for the API.
    """

    name = "web_search"
    description = "Searches the web and returns the top results: title, link and snippet."
    inputs = {"query": {"type": "string", "description": "What to search for."}}
    output_type = "string"

    def __init__(
        self,
        endpoint: str = "",
        api_key: str = "",
        api_key_name: str = "",
        headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None,
        rate_limit: float | None = 1.0,
        timeout: float = 20.0,
    ):
        super().__init__()
        self.endpoint = endpoint or _BRAVE
        self.api_key = _key(api_key, api_key_name or "BRAVE_API_KEY", "ApiWebSearchTool")
        self.headers = headers or {"X-Subscription-Token": self.api_key}
        self.params = params or {"count": 10}
        self.rate_limiter = RateLimiter(rate_limit)
        self.timeout = timeout

    @property
    def min_interval(self) -> float:
        """Seconds between two searches (0: no limit)."""
        return self.rate_limiter.min_interval

    def forward(self, query: str) -> str:
        self.rate_limiter.wait()
        data = _get_json(self.endpoint, {**self.params, "q": query}, self.headers, self.timeout)
        items = ((data or {}).get("web") or {}).get("results") or []
        if not items:
            return f"No results found for {query!r}. Try a broader query."
        results = [
            {"title": i.get("title"), "href": i.get("url"), "body": i.get("description")}
            for i in items
        ]
        return format_results(query, results)
