"""`/gradio_api/mcp/`: the agent as an MCP server (streamable HTTP) on the app's own port.

Three tools: `ask_agent` runs a turn (in a new conversation, or one of the caller's), and
`list_conversations` / `read_conversation` show the caller's own conversations. Callers are
told apart as for `/v1` (`ApiAccess`: an API key, or loopback only while sign-in is off and
no key exists); a refused caller gets the HTTP error before any MCP message is read.

Not gradio's own MCP server (`launch(mcp_server=True)`): that one makes a tool of every
event of the page (sending, stopping, renaming, the side panel...) and runs them outside
the turn path's sign-in, owners and limits.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

# Imported with this module, which loads only when the app serves MCP: the tools' type hints
# name them, and MCPServer reads those hints from the module's globals.
import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from smolui.api.access import ApiAccess, Caller, Refused
from smolui.api.agent_tools import AgentTools
from smolui.api.text import FileUrl
from smolui.api.turns import TurnRefused

logger = logging.getLogger(__name__)

MCP_PATH = "/gradio_api/mcp"
REFUSED_CODE = -32001  # a server-defined JSON-RPC error: this caller may not call
INSTRUCTIONS = (
    "smolui's agent: it writes and runs Python in a sandbox to answer. Give ask_agent a whole "
    "task; pass the conversation_id it returns to continue the same conversation."
)


class AgentFile(BaseModel):
    """A file for `ask_agent`: a name with its content in base64, or an MCP resource's
    contents as a client embeds them (uri, mimeType, and blob or text)."""

    name: str | None = Field(None, description="The file's name with its extension.")
    data: str | None = Field(None, description="The content: base64, or a data: URL.")
    uri: str | None = Field(None, description="A resource's URI (names the file; not read).")
    mimeType: str | None = Field(None, description="A resource's content type.")  # noqa: N815
    blob: str | None = Field(None, description="A binary resource's content, in base64.")
    text: str | None = Field(None, description="A text resource's content.")


def mcp_router(tools: AgentTools, access: ApiAccess) -> Any:
    """A FastAPI router serving the MCP server at `MCP_PATH`, whose lifespan runs the MCP
    session manager (FastAPI merges an included router's lifespan into the app's).

    Args:
        tools: What the tools do.
        access: Tells who calls.
    """
    from fastapi import APIRouter
    from mcp.server.transport_security import TransportSecuritySettings

    server = _server(tools, access)
    # `streamable_http_app` makes the session manager; its own Starlette app is not served.
    # Stateless: each call stands alone, so any replica may answer it. Host checks are
    # `ApiAccess`'s (a key-less caller must name this machine), not mcp's loopback list,
    # which would refuse a Space's own host name.
    server.streamable_http_app(
        stateless_http=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    manager = server.session_manager
    router = APIRouter(lifespan=lambda app: manager.run())
    guarded = _Guarded(manager.handle_request, access)
    for path in (MCP_PATH, MCP_PATH + "/"):
        router.add_route(path, guarded, include_in_schema=False)
    return router


class _Guarded:
    """An ASGI app: refuses callers `ApiAccess` refuses, hands the rest to the MCP server."""

    def __init__(self, app: Callable[..., Any], access: ApiAccess):
        self.app, self.access = app, access

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.requests import Request
        from starlette.responses import JSONResponse

        request = Request(scope)
        found = self.access.caller(request.headers.get("authorization"), request)
        if isinstance(found, Refused):
            # A JSON-RPC error: MCP clients show its message (the status alone they do not).
            error = {
                "code": REFUSED_CODE,
                "message": found.message,
                "data": {"status": found.status},
            }
            body = {"jsonrpc": "2.0", "id": None, "error": error}
            headers = {"WWW-Authenticate": "Bearer"} if found.status == 401 else None
            await JSONResponse(body, found.status, headers=headers)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _server(tools: AgentTools, access: ApiAccess) -> MCPServer:
    server = MCPServer("smolui", instructions=INSTRUCTIONS, log_level="WARNING")

    def answer(ctx: Context, run: Callable[[Caller, FileUrl], CallToolResult]) -> CallToolResult:
        """`run` for the call's caller; a refusal is the tool's error, worded as the page's
        (a raised `ToolError` would come prefixed with mcp's own words)."""
        request = ctx.request_context.request
        found = access.caller(request.headers.get("authorization"), request)
        try:
            if isinstance(found, Refused):  # the guard let it through: the key was just revoked
                raise TurnRefused(found.message, found.status)
            return run(found, _file_url(request))
        except TurnRefused as refused:
            return CallToolResult(content=[_text(refused.message)], is_error=True)

    @server.tool()
    def ask_agent(
        task: str,
        ctx: Context,
        conversation_id: str | None = None,
        files: list[AgentFile] | None = None,
    ) -> CallToolResult:
        """Ask the agent to do a task: it plans, writes and runs Python, and answers.

        Args:
            task: What to do or answer, with everything the agent needs to know.
            conversation_id: Continue this conversation (from an earlier answer or
                list_conversations); leave it out to start a new one.
            files: Files for the agent to read (PDF, Word, text, CSV, TSV, Excel, images),
                each a name with base64 data, or an embedded resource's contents.
        """
        given = [item.model_dump(exclude_none=True) for item in files or []]

        def progress(count: int, note: str) -> None:
            try:
                anyio.from_thread.run(ctx.report_progress, count, None, note)
            except Exception:  # a client gone mid-turn: the turn still ends and is kept
                logger.debug("could not send MCP progress", exc_info=True)

        def run(caller: Caller, file_url: FileUrl) -> CallToolResult:
            done = tools.ask(caller, task, conversation_id, file_url, progress, given)
            said = [_text(done.text), _text(f"conversation_id: {done.conversation_id}")]
            found = {"answer": done.text, "conversation_id": done.conversation_id}
            return CallToolResult(content=said, structured_content=found)

        return answer(ctx, run)

    @server.tool()
    def list_conversations(ctx: Context) -> CallToolResult:
        """Your conversations with the agent, newest first: their ids, titles and last change."""

        def run(caller: Caller, _: FileUrl) -> CallToolResult:
            found = tools.conversations(caller)
            text = "\n".join(f"{c['id']}  {c['updated']}  {c['title']}" for c in found)
            return CallToolResult(content=[_text(text or "(no conversations yet)")],
                                  structured_content={"conversations": found})  # fmt: skip

        return answer(ctx, run)

    @server.tool()
    def read_conversation(conversation_id: str, ctx: Context) -> CallToolResult:
        """One of your conversations: each message and the agent's answers, as Markdown.

        Args:
            conversation_id: Its id (from list_conversations or ask_agent).
        """

        def run(caller: Caller, file_url: FileUrl) -> CallToolResult:
            return CallToolResult(content=[_text(tools.read(caller, conversation_id, file_url))])

        return answer(ctx, run)

    return server


def _text(text: str) -> TextContent:
    return TextContent(type="text", text=text)


def _file_url(request: Any) -> FileUrl:
    base = str(request.base_url)
    return lambda path: f"{base}gradio_api/file={quote(path)}"
