"""Files for MCP's `ask_agent`, sent by the official `mcp` client to the running app on
loopback: named base64 content and embedded resources become the turn's attachments as the
page's uploads do; a bad file is a tool error that says which and why, and nothing is kept."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from smolui.api.request_files import FOLDER_PREFIX
from tests.samples import write_pdf, write_xlsx
from tests.smolui.api_app import make_key, served_app
from tests.smolui.test_mcp_server import call, with_session

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mcp-files")
    cache = folder / "gradio-cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADIO_TEMP_DIR", str(cache))  # where the page's uploads land
        with served_app(folder, mcp=True, max_files=3) as (ui, base):
            yield ui, f"{base}gradio_api/mcp/", folder, cache


@pytest.fixture(scope="module")
def bob(app) -> str:
    return make_key(app[2], "bob", "smolui.auth.keys")


def encoded(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def test_named_files_and_resources_become_the_turn_s_attachments(app, tmp_path):
    ui, url, folder, cache = app
    pdf = write_pdf(tmp_path / "r.pdf", ["Quarterly report\nRevenue grew by 12 percent"])
    xlsx = write_xlsx(tmp_path / "s.xlsx", [["region", "sales"], ["north", 10], ["south", 32]])
    files = [
        {"name": "report.pdf", "data": encoded(pdf.read_bytes())},
        {"uri": "file:///home/me/sales.xlsx", "mimeType": XLSX, "blob": encoded(xlsx.read_bytes())},
        {"uri": "notes://today/todo.md", "mimeType": "text/markdown", "text": "# Todo\n- call Bob"},
    ]

    async def ask(session: ClientSession) -> tuple[Any, list[str]]:
        notes: list[str] = []

        async def heard(progress: float, total: float | None, message: str | None) -> None:
            notes.append(message or "")

        task = {"task": "Sum the sales", "files": files}
        return await session.call_tool("ask_agent", task, progress_callback=heard), notes

    result, notes = with_session(url, make_key(folder, "alice", "smolui.auth.keys"), ask)
    assert not result.is_error and result.content[0].text == "42"
    assert [note.split(" (")[0] for note in notes[:3]] == [
        "✓ Attached report.pdf", "✓ Attached sales.xlsx", "✓ Attached todo.md"
    ]  # fmt: skip
    session = ui.registry.get(result.structured_content["conversation_id"])
    task = session.agent.memory.steps[0].task  # the agent's note on the files, as the page's
    assert "Revenue grew by 12 percent" in task and "sales.xlsx" in task and "call Bob" in task
    stored = sorted(p.name for p in session.upload_dir.iterdir())
    assert stored == ["report.pdf", "sales.xlsx", "todo.md"]
    chat = ui.keeper.chat(ui.keeper.find("api:alice", session.id))
    shown = [m["content"] for m in chat if m["role"] == "user"]
    assert [Path(item["path"]).parent.parent for item in shown[:3]] == [cache] * 3


@pytest.mark.parametrize(
    ("files", "says"),
    [
        ([{"name": "tool.exe", "data": encoded(b"MZ\x90\x00")}],
         "files[0] (tool.exe) is refused: .exe files are not accepted"),
        ([{"name": "a.txt", "data": encoded(b"a")}, {"uri": "https://example.com/b.pdf"}],
         "files[1] carries no content"),
        ([{"name": "a.png", "data": "not base64!"}], "files[0] is not valid base64"),
        ([{"data": encoded(b"hello")}], "files[0] has no file name"),
        ([{"name": f"{n}.txt", "data": encoded(b"hi")} for n in range(4)],
         "At most 3 files can be attached to one message"),
    ],
)  # fmt: skip
def test_a_bad_file_is_a_tool_error_and_nothing_is_kept(app, bob, files, says):
    ui, url, _, cache = app
    before = set(cache.glob(f"{FOLDER_PREFIX}*"))
    refused = call(url, bob, "ask_agent", task="Read these", files=files)
    assert refused.is_error and says in refused.content[0].text
    assert set(cache.glob(f"{FOLDER_PREFIX}*")) == before
    assert ui.keeper.list("api:bob") == []  # no turn began
