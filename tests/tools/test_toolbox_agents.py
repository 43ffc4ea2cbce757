"""The default toolbox used by real agents (ScriptedModel): every tool, every readable error."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
from documents_factory import make_pdf

from agents import CodeAgent, ScriptedModel, ScriptedReply, ToolCallingAgent
from tools.agent_types import write_wav
from tools.documents import document_tools
from tools.toolbox import base_tools
from tools.web_search import WebSearchTool


class Pages(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        found = self.path == "/hello"
        body = b"<h1>Hello</h1><p>The answer is 42.</p>" if found else b"gone"
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def private_hosts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test site is on loopback, which visit_webpage refuses unless the operator allows it."""
    monkeypatch.setenv("SMOLUI_VISIT_PRIVATE_HOSTS", "1")


@pytest.fixture
def uploads(tmp_path: Path) -> Path:
    folder = tmp_path / "session"
    folder.mkdir()
    make_pdf(folder / "guide.pdf", ["Chapter one.", "The password is swordfish."])
    (tmp_path / "private.txt").write_text("not for agents")
    return folder


def offline_search() -> WebSearchTool:
    """The real web_search tool, routed to a dead loopback proxy: exactly what offline does."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return WebSearchTool(proxy=f"http://127.0.0.1:{port}", timeout=5)


def test_base_tools_names() -> None:
    names = [t.name for t in base_tools(include_python_interpreter=False)]
    assert names == ["web_search", "visit_webpage", "transcriber"]
    with_all = [t.name for t in base_tools(include_python_interpreter=True, documents_dir="/tmp")]
    assert with_all == [
        "python_interpreter",
        "web_search",
        "visit_webpage",
        "transcriber",
        "list_documents",
        "read_document",
        "search_document",
    ]


def test_building_the_toolbox_imports_nothing_heavy(tmp_path: Path) -> None:
    heavy = ("torch", "transformers", "mcp", "huggingface_hub", "ddgs", "markdownify", "pypdf")
    script = (
        "import sys, tools\n"
        f"tools.base_tools(True, {str(tmp_path)!r})\n"
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "[]"


def _close(agent) -> None:
    interpreter = agent.tools.get("python_interpreter")
    if interpreter is not None:
        interpreter.close()


def test_tool_calling_agent_uses_each_default_tool(site: str, uploads: Path, private_hosts) -> None:
    calls = [
        ("python_interpreter", {"code": "x = 6 * 7\nprint('x is', x)"}),
        ("python_interpreter", {"code": "x + 1"}),
        ("python_interpreter", {"code": "1 / 0"}),
        ("visit_webpage", {"url": f"{site}/hello"}),
        ("visit_webpage", {"url": f"{site}/nope"}),
        ("web_search", {"query": "smolagents"}),
        ("list_documents", {}),
        ("read_document", {"path": "guide.pdf", "start_page": 2}),
        ("search_document", {"path": "guide.pdf", "query": "password"}),
        ("read_document", {"path": "../private.txt"}),
        ("visit_webpage", {"url": 42}),
        ("final_answer", {"answer": "swordfish"}),
    ]
    model = ScriptedModel([ScriptedReply(tool_calls=[call]) for call in calls])
    agent = ToolCallingAgent(
        tools=[offline_search(), *document_tools(uploads)],
        model=model,
        add_base_tools=True,
        verbosity_level=-1,
    )
    try:
        assert agent.run("find the password") == "swordfish"
    finally:
        _close(agent)
    steps = agent.memory.steps[1:]
    seen = [s.observations or s.error.message for s in steps]
    assert "x is 42" in seen[0]
    assert "Output: 43" in seen[1]
    assert "ZeroDivisionError" in steps[2].error.message
    assert "# Hello" in seen[3] and "The answer is 42." in seen[3]
    assert "HTTP 404" in steps[4].error.message
    assert "could not be reached" in steps[5].error.message
    assert "guide.pdf (PDF" in seen[6]
    assert "swordfish" in seen[7] and "Chapter one" not in seen[7]
    assert "[page 2]" in seen[8]
    assert "outside the documents folder" in steps[9].error.message
    assert "not for agents" not in "".join(str(s) for s in seen)
    assert "should be string" in steps[10].error.message


def test_code_agent_uses_each_default_tool(site: str, uploads: Path, private_hosts) -> None:
    code = f"""
page = visit_webpage(url="{site}/hello")
print("page:", page.splitlines()[0])
print(list_documents())
print(search_document(path="guide.pdf", query="password"))
try:
    web_search(query="smolagents")
except Exception as error:
    print("search failed:", error)
try:
    read_document(path="../private.txt")
except Exception as error:
    print("read failed:", error)
final_answer(read_document(path="guide.pdf", start_page=2, end_page=2))
"""
    model = ScriptedModel([f"Thought: use the tools.\n<code>{code}</code>"])
    agent = CodeAgent(
        tools=[offline_search(), *document_tools(uploads)],
        model=model,
        add_base_tools=True,
        executor_type="sandbox",
        verbosity_level=-1,
    )
    try:
        answer = agent.run("find the password")
    finally:
        agent.executor.close()
    assert "The password is swordfish." in str(answer)
    logs = agent.memory.steps[1].observations
    assert "page: # Hello" in logs
    assert "guide.pdf (PDF" in logs
    assert "[page 2]" in logs
    assert "search failed:" in logs and "could not be reached" in logs
    assert "read failed:" in logs and "outside the documents folder" in logs
    assert "python_interpreter" not in agent.tools


@pytest.mark.slow
def test_transcriber_without_weights_is_an_observation(tmp_path: Path) -> None:
    write_wav(tmp_path / "speech.wav", np.zeros(16_000, dtype=np.float32) + 0.01, 16_000)
    model = ScriptedModel(
        [
            ScriptedReply(tool_calls=[("transcriber", {"audio": str(tmp_path / "speech.wav")})]),
            ScriptedReply(tool_calls=[("final_answer", {"answer": "no transcript"})]),
        ]
    )
    agent = ToolCallingAgent(tools=[], model=model, add_base_tools=True, verbosity_level=-1)
    try:
        assert agent.run("transcribe") == "no transcript"
    finally:
        _close(agent)
    message = agent.memory.steps[1].error.message
    assert "could not be loaded" in message and "download" in message


def test_python_interpreter_reads_the_documents_folder(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("forty-two", encoding="utf-8")
    tools = base_tools(include_python_interpreter=True, documents_dir=str(tmp_path))
    interpreter = next(t for t in tools if t.name == "python_interpreter")
    try:
        out = interpreter(code=f"print(open({str(tmp_path / 'notes.txt')!r}).read())")
    finally:
        interpreter.close()
    assert "forty-two" in out
