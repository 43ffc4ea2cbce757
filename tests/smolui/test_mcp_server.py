"""The MCP server at `/gradio_api/mcp/`, driven by the official `mcp` client (streamable HTTP)
against the running app on loopback: its tools, turns kept as the caller's conversations,
API keys, and the per-user limits with the page's message."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from smolui.api.access import LOCAL_OWNER, ApiAccess, Refused
from smolui.auth import AuthConfig, Identity, SignIn
from smolui.turns.pending import PendingTurn
from tests.smolui.api_app import TURNS_PER_HOUR, served_app
from tests.smolui.api_app import make_key as make_api_key


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mcp-server")
    with served_app(folder, mcp=True) as (ui, base):
        yield ui, f"{base}gradio_api/mcp/", folder


def make_key(folder: Path, user: str) -> str:
    """A key made by `python -m smolui.auth.keys` (the README's command; its last line is the key)."""
    return make_api_key(folder, user, "smolui.auth.keys")


def with_session(url: str, key: str | None, use: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    """Open an MCP session with the server (as the key's user), run `use` in it."""

    async def run() -> Any:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
            streamable_http_client(url, http_client=http) as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            return await use(session)

    # In a thread of its own: a browser test's Playwright (sync API) keeps an event loop
    # running in the main thread for the whole session, where anyio.run cannot start one.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, run).result()


def call(url: str, key: str | None, tool: str, **arguments: Any) -> Any:
    """One tool call's result."""
    return with_session(url, key, lambda session: session.call_tool(tool, arguments))


def test_this_machine_may_ask_without_a_key_until_one_exists(app):
    ui, url, _ = app

    async def ask(session: ClientSession) -> tuple[set[str], Any, list[str]]:
        listed = await session.list_tools()
        notes: list[str] = []

        async def heard(progress: float, total: float | None, message: str | None) -> None:
            notes.append(message or "")

        task = {"task": "What is 6 times 7?"}
        result = await session.call_tool("ask_agent", task, progress_callback=heard)
        return {tool.name for tool in listed.tools}, result, notes

    names, result, notes = with_session(url, None, ask)
    assert names == {"ask_agent", "list_conversations", "read_conversation"}
    assert not result.is_error
    assert result.content[0].text == "42"
    conversation = result.structured_content["conversation_id"]
    assert result.content[1].text == f"conversation_id: {conversation}"
    assert notes and notes[0].startswith("Step 1")  # each finished step is told as progress
    chat = ui.keeper.chat(ui.keeper.find(LOCAL_OWNER, conversation))  # kept like the page's
    assert chat[0] == {"role": "user", "content": "What is 6 times 7?"}


def test_a_conversation_continues_and_only_its_owner_lists_and_reads_it(app):
    ui, url, folder = app
    key = make_key(folder, "alice")
    first = call(url, key, "ask_agent", task="First question")
    conversation = first.structured_content["conversation_id"]
    second = call(url, key, "ask_agent", task="Second question", conversation_id=conversation)
    assert second.structured_content["conversation_id"] == conversation
    assert ui.registry.get(conversation).agent.memory.steps  # one agent remembers both

    listed = call(url, key, "list_conversations")
    assert [item["id"] for item in listed.structured_content["conversations"]] == [conversation]
    read = call(url, key, "read_conversation", conversation_id=conversation)
    text = read.content[0].text
    assert "**User:** First question" in text and "**User:** Second question" in text
    assert text.count("**Agent:** 42") == 2

    other = make_key(folder, "mallory")
    assert call(url, other, "list_conversations").structured_content["conversations"] == []
    for tool, arguments in [("read_conversation", {}),
                            ("ask_agent", {"task": "Let me in"})]:  # fmt: skip
        refused = call(url, other, tool, conversation_id=conversation, **arguments)
        assert refused.is_error and "No conversation of yours" in refused.content[0].text


def test_over_the_limit_is_a_tool_error_with_the_page_s_message(app):
    ui, url, folder = app
    key = make_key(folder, "dave")
    for _ in range(TURNS_PER_HOUR):
        assert not call(url, key, "ask_agent", task="Hi").is_error
    identity = Identity(provider="api", name="dave", client="127.0.0.1")
    page_says = ui.admission.enter(identity, "api:dave", PendingTurn.message("Hi"))
    assert isinstance(page_says, str) and page_says.startswith("Limit reached")
    refused = call(url, key, "ask_agent", task="Hi")
    assert refused.is_error and refused.content[0].text == page_says


def test_once_a_key_exists_a_call_without_one_is_refused(app):
    _, url, folder = app
    make_key(folder, "erin")
    bare = httpx2.post(url, timeout=30, headers={"Accept": "application/json, text/event-stream"},
                       json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})  # fmt: skip
    assert bare.status_code == 401 and "API key is needed" in bare.json()["error"]["message"]
    with pytest.raises(Exception) as refused:  # the client fails to open the session
        call(url, None, "list_conversations")
    assert "API key is needed" in _messages(refused.value)
    with pytest.raises(Exception) as refused:
        call(url, "smolui-not-a-key", "list_conversations")
    assert "not valid" in _messages(refused.value)


def _messages(error: BaseException) -> str:
    """Every message in an exception and the groups and causes it wraps."""
    parts = [f"{type(error).__name__}: {error}"]
    for inner in getattr(error, "exceptions", ()):  # an ExceptionGroup from the task group
        parts.append(_messages(inner))
    if error.__cause__ is not None:
        parts.append(_messages(error.__cause__))
    return "\n".join(parts)


def test_a_page_that_rebinds_its_name_to_this_machine_is_refused():
    access = ApiAccess(SignIn(AuthConfig()), None)

    def request(host: str) -> SimpleNamespace:
        return SimpleNamespace(client=SimpleNamespace(host="127.0.0.1"), headers={"host": host})

    assert not isinstance(access.caller(None, request("127.0.0.1:7860")), Refused)
    assert not isinstance(access.caller(None, request("localhost:7860")), Refused)
    rebound = access.caller(None, request("attacker.example:7860"))
    assert isinstance(rebound, Refused) and rebound.status == 403
