"""`ToolCollection`: a group of tools loaded together, from an MCP server or a Hub collection."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tools.base import Tool


class ToolCollection:
    """A list of tools that came from one place.

    Args:
        tools: The tools.
    """

    def __init__(self, tools: list[Tool]):
        self.tools = list(tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)

    @classmethod
    @contextmanager
    def from_mcp(
        cls, server_parameters: Any, trust_remote_code: bool = False, **client_kwargs: Any
    ) -> Iterator[ToolCollection]:
        """Connect to an MCP server and yield its tools; disconnects when the block ends.

        Args:
            server_parameters: See `MCPClient`.
            trust_remote_code: Must be True: the tools run code you do not control (a local
                subprocess for stdio servers).
            **client_kwargs: Passed to `MCPClient` (timeouts).
        """
        from tools.hub import require_trust
        from tools.mcp import MCPClient

        require_trust("tools from an MCP server", trust_remote_code)
        with MCPClient(server_parameters, **client_kwargs) as tools:
            yield cls(tools)

    @classmethod
    def from_hub(
        cls, collection_slug: str, token: str | None = None, trust_remote_code: bool = False
    ) -> ToolCollection:
        """Load every tool Space of a Hub collection.

        Args:
            collection_slug: The collection's id, e.g. `"user/my-tools-64f1..."`.
            token: A Hugging Face token for private items.
            trust_remote_code: Must be True: loading runs each tool's code.
        """
        from huggingface_hub import get_collection

        from tools.hub import load_tool, require_trust

        require_trust(f"the tools of collection {collection_slug!r}", trust_remote_code)
        collection = get_collection(collection_slug, token=token)
        spaces = [item.item_id for item in collection.items if item.item_type == "space"]
        return cls(
            [load_tool(s, trust_remote_code=True, token=token) for s in dict.fromkeys(spaces)]
        )
