"""`wikipedia_search`: read a Wikipedia page's summary or text (package `wikipedia-api`)."""

from __future__ import annotations

from typing import Any

from agents.errors import AgentConfigError
from tools.base import Tool, ToolExecutionError


class WikipediaSearchTool(Tool):
    """Looks a topic up on Wikipedia and returns its summary or full text.

    Args:
        user_agent: Sent with each request, as Wikipedia's rules ask ("app (contact)").
        language: The Wikipedia edition, e.g. "en", "fr".
        content_type: "summary" (the lead section) or "text" (the whole page).
        extract_format: "WIKI" (plain text) or "HTML".

    Raises:
        AgentConfigError: `wikipedia-api` is not installed, or an option is unknown.
    """

    name = "wikipedia_search"
    description = (
        "Searches Wikipedia for a topic and returns the page's summary or text, with its link."
    )
    inputs = {"query": {"type": "string", "description": "The topic to look up."}}
    output_type = "string"

    def __init__(
        self,
        user_agent: str = "smolui (https://github.com/)",
        language: str = "en",
        content_type: str = "text",
        extract_format: str = "WIKI",
    ):
        super().__init__()
        from agents.models.optional import optional_import

        wikipediaapi = optional_import("wikipediaapi", "wikipedia-api", "WikipediaSearchTool")
        if content_type not in ("summary", "text"):
            raise AgentConfigError("content_type must be 'summary' or 'text'.")
        formats = {"WIKI": wikipediaapi.ExtractFormat.WIKI, "HTML": wikipediaapi.ExtractFormat.HTML}
        if extract_format not in formats:
            raise AgentConfigError("extract_format must be 'WIKI' or 'HTML'.")
        self.content_type = content_type
        self.wiki: Any = wikipediaapi.Wikipedia(
            user_agent=user_agent, language=language, extract_format=formats[extract_format]
        )

    def forward(self, query: str) -> str:
        try:
            page = self.wiki.page(query)
            if not page.exists():
                return f"No Wikipedia page found for {query!r}. Try a more specific title."
            text = page.summary if self.content_type == "summary" else page.text
        except Exception as error:  # network and API failures alike
            raise ToolExecutionError(
                f"Wikipedia could not be reached ({type(error).__name__}: {error})."
            ) from error
        return f"**Wikipedia page:** {page.title}\n\n{text}\n\nRead more: {page.fullurl}"
