"""A real MCP server for the tests: `python mcp_test_server.py [stdio | http PORT]`."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("smolui-test-server", log_level="ERROR")


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool(name="word-count")
def word_count(text: str, unique: bool = False) -> str:
    """Counts the words of a text."""
    words = text.split()
    return str(len(set(words)) if unique else len(words))


@server.tool()
def explode(reason: str) -> str:
    """Always fails, with the given reason."""
    raise ToolError(f"exploded: {reason}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
