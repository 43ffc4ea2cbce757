"""MCP: use the tools of a Model Context Protocol server as `Tool`s.

`MCPClient` keeps one session open with a server (stdio subprocess, streamable HTTP or SSE)
on a private event loop in a background thread, so the synchronous agent loop can call
the server's tools like any other tool.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import logging
import re
import threading
import time
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import asynccontextmanager
from typing import Any

from agents.errors import AgentConfigError
from tools.base import AUTHORIZED_TYPES, Tool, ToolExecutionError

logger = logging.getLogger(__name__)


class MCPClient:
    """A connection to an MCP server whose tools become `Tool`s.

    Use it as a context manager (`with MCPClient(params) as tools: ...`), or call
    `connect()` / `disconnect()` yourself.

    Args:
        server_parameters: `mcp.StdioServerParameters` (or a dict with `command`, `args`,
            `env`) for a local subprocess, or a dict with `url` (and optionally
            `transport`: "streamable-http" (default) or "sse", plus `headers`) for a remote one.
        connect_timeout: Seconds to wait for the server to start and list its tools.
        call_timeout: Seconds to wait for one tool call.
        structured_output: Tools with an output schema return the server's structured
            content (a dict) and declare `output_type="object"` with that `output_schema`;
            default: their text.
    """

    def __init__(
        self,
        server_parameters: Any,
        connect_timeout: float = 30.0,
        call_timeout: float = 120.0,
        structured_output: bool | None = None,
    ):
        self.server_parameters = server_parameters
        self.structured_output = bool(structured_output)
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._session: Any = None
        self._stop: asyncio.Event | None = None
        self._serving: Any = None
        self._tools: list[Tool] = []

    # -- lifecycle -----------------------------------------------------------------------

    def connect(self) -> None:
        """Start the session and fetch the server's tool list."""
        if self._session is not None:
            return
        ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="mcp-client", daemon=True
        )
        self._thread.start()
        self._serving = asyncio.run_coroutine_threadsafe(self._serve(ready), self._loop)
        try:
            self._wait_ready(ready)
            listed = self._run(self._session.list_tools(), self.connect_timeout)
        except BaseException:
            self.disconnect()
            raise
        self._tools = [MCPTool(self, spec) for spec in listed.tools]
        logger.info("MCP server offers %d tool(s)", len(self._tools))

    def _wait_ready(self, ready: threading.Event) -> None:
        deadline = time.monotonic() + self.connect_timeout
        while not ready.wait(0.05) and not self._serving.done():
            if time.monotonic() > deadline:
                raise AgentConfigError(
                    f"The MCP server did not start within {self.connect_timeout:g} seconds."
                )
        if self._serving.done():  # the session task ended before being ready: it failed
            error = _root_cause(self._serving.exception())
            raise AgentConfigError(
                f"Could not connect to the MCP server: {type(error).__name__}: {error}. "
                "Check the server command or URL, and the server's own error output."
            ) from error

    async def _serve(self, ready: threading.Event) -> None:
        # one task enters and exits every context manager: anyio requires it
        from mcp import ClientSession

        self._stop = asyncio.Event()
        async with self._transport() as streams, ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            self._session = session
            ready.set()
            await self._stop.wait()
        self._session = None

    def _transport(self) -> Any:
        params = self.server_parameters
        if isinstance(params, dict) and "url" in params:
            transport = params.get("transport", "streamable-http")
            headers = params.get("headers")
            if transport == "sse":
                from mcp.client.sse import sse_client

                return sse_client(params["url"], headers=headers)
            if transport not in ("streamable-http", "http"):
                raise AgentConfigError(
                    f"Unknown MCP transport {transport!r}; use 'streamable-http' or 'sse'."
                )
            return _streamable_http(params["url"], headers)
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        if isinstance(params, dict):
            params = StdioServerParameters(**params)
        if not isinstance(params, StdioServerParameters):
            raise AgentConfigError(
                "server_parameters must be mcp.StdioServerParameters, a dict with 'command', "
                f"or a dict with 'url'; got {type(params).__name__}."
            )
        return stdio_client(params)

    def disconnect(self) -> None:
        """Close the session, stop the server subprocess (stdio) and the event loop."""
        loop = self._loop
        if loop is None:
            return
        if self._stop is not None:
            loop.call_soon_threadsafe(self._stop.set)
        if self._serving is not None:
            try:
                self._serving.result(timeout=10)
            except Exception as error:  # closing must not hide the caller's own error
                logger.debug("MCP session closed with %r", error)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(timeout=5)
        loop.close()
        self._loop = self._thread = self._session = self._serving = None

    def __enter__(self) -> list[Tool]:
        self.connect()
        return self.get_tools()

    def __exit__(self, *exc: Any) -> None:
        self.disconnect()

    # -- use -----------------------------------------------------------------------------

    def get_tools(self) -> list[Tool]:
        """The server's tools, as `Tool`s (valid while connected)."""
        return list(self._tools)

    def _run(self, coroutine: Any, timeout: float) -> Any:
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            return future.result(timeout=timeout)
        except FutureTimeout as error:
            future.cancel()
            raise ToolExecutionError(
                f"The MCP server did not answer within {timeout:g} seconds."
            ) from error

    def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """Call a tool on the server; returns text, a PIL image, or structured data.

        Args:
            name: The server's name for the tool.
            arguments: Its arguments.
        """
        if self._session is None:
            raise ToolExecutionError(f"The MCP server behind '{name}' is not connected.")
        result = self._run(self._session.call_tool(name, arguments), self.call_timeout)
        structured = _field(result, "structured_content", "structuredContent")
        if self.structured_output and structured is not None:
            if _field(result, "is_error", "isError"):
                _unpack(name, result)  # raises with the server's message
            return structured
        return _unpack(name, result)


def _root_cause(error: BaseException | None) -> BaseException | None:
    """The first leaf of nested exception groups (anyio wraps transport failures)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _field(obj: Any, name: str, v1_name: str) -> Any:
    """An attribute under its mcp 2 name, or its mcp 1 (camelCase) name."""
    return getattr(obj, name, getattr(obj, v1_name, None))  # why: mcp 1 and 2 name it apart


def _streamable_http(url: str, headers: dict[str, str] | None) -> Any:
    try:  # mcp >= 2
        from mcp.client.streamable_http import streamable_http_client
    except ImportError:  # mcp 1.x
        from mcp.client.streamable_http import streamablehttp_client

        return streamablehttp_client(url, headers=headers)
    if not headers:
        return streamable_http_client(url)
    return _with_headers(streamable_http_client, url, headers)


@asynccontextmanager
async def _with_headers(client_factory: Any, url: str, headers: dict[str, str]) -> Any:
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with (
        create_mcp_http_client(headers=headers) as http_client,
        client_factory(url, http_client=http_client) as streams,
    ):
        yield streams


def _unpack(name: str, result: Any) -> Any:
    texts: list[str] = []
    images: list[Any] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")  # why: a third-party block, kinds vary by mcp version
        if kind == "text":
            texts.append(block.text)
        elif kind == "image":
            from PIL import Image

            images.append(Image.open(io.BytesIO(base64.b64decode(block.data))))
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)  # why: mcp blob resources have no text
            texts.append(text or f"[resource {resource.uri}]")
    if _field(result, "is_error", "isError"):
        message = "\n".join(texts) or "unknown error"
        raise ToolExecutionError(f"MCP tool '{name}' failed: {message}")
    if texts:
        return "\n".join(texts)
    if images:
        return images[0]
    structured = _field(result, "structured_content", "structuredContent")
    return json.dumps(structured) if structured is not None else ""


class MCPTool(Tool):
    """One tool of an MCP server, described by the server's JSON schema."""

    skip_forward_signature_validation = True
    output_type = "any"

    def __init__(self, client: MCPClient, spec: Any):
        self.client = client
        self.remote_name = spec.name
        self.name = _identifier(spec.name)
        self.description = (spec.description or spec.name).strip()
        self.inputs = schema_to_inputs(_field(spec, "input_schema", "inputSchema") or {})
        schema = _field(spec, "output_schema", "outputSchema")
        if client.structured_output and schema:
            self.output_type, self.output_schema = "object", schema
        super().__init__()

    def forward(self, **kwargs: Any) -> Any:
        arguments = {
            k: v for k, v in kwargs.items() if v is not None or not self.inputs[k].get("nullable")
        }
        return self.client.call_tool(self.remote_name, arguments)


def _identifier(name: str) -> str:
    cleaned = re.sub(r"\W", "_", name)
    return cleaned if cleaned.isidentifier() else f"tool_{cleaned}"


def schema_to_inputs(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Convert an MCP tool's JSON schema to `Tool.inputs`.

    Args:
        schema: The `inputSchema` object (`properties`, `required`).
    """
    required = set(schema.get("required", []))
    inputs: dict[str, dict[str, Any]] = {}
    for arg, prop in (schema.get("properties") or {}).items():
        kind, nullable = _type_of(prop)
        spec: dict[str, Any] = {
            "type": kind,
            "description": prop.get("description") or prop.get("title") or arg,
        }
        for key in ("enum", "items", "default"):
            if key in prop:
                spec[key] = prop[key]
        if nullable or arg not in required:
            spec["nullable"] = True
        inputs[arg] = spec
    return inputs


def _type_of(prop: dict[str, Any]) -> tuple[str, bool]:
    kind = prop.get("type")
    if kind is None and "anyOf" in prop:
        kinds = [option.get("type") for option in prop["anyOf"]]
        kind = kinds
    if isinstance(kind, list):
        nullable = "null" in kind
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else "any"
        return (kind if kind in AUTHORIZED_TYPES else "any"), nullable
    return (kind if kind in AUTHORIZED_TYPES else "any"), False
