"""`python app.py` answers HTTP at once: the starting page, then the app on the same socket."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from smolui.app.starting_page import HOLD_S, StartingPage
from smolui.observability.server import AppServer
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def starting():
    page = StartingPage("127.0.0.1", 0, title="testapp")
    yield page
    page.close()


def test_the_page_answers_at_once_and_ends_with_a_reload_once_released(starting):
    url = f"http://127.0.0.1:{starting.port}/"
    with httpx.stream("GET", url, timeout=10) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
        chunks = response.iter_text()
        first = next(chunks)
        assert "testapp is starting" in first
        assert "location.reload()" not in first  # held open until the app serves
        starting.release()  # the page already shows, held: releasing it ends it
        rest = "".join(chunks)
    assert rest.rstrip().endswith("<script>location.reload()</script></body></html>")


def test_health_says_alive_and_everything_else_not_ready(starting):
    base = f"http://127.0.0.1:{starting.port}"
    assert httpx.get(base + "/healthz").json() == {"status": "ok"}
    answers = [
        httpx.get(base + "/readyz"),
        httpx.get(base + "/config"),
        httpx.post(base + "/gradio_api/queue/join", json={}),
    ]
    for response in answers:
        assert response.status_code == 503
        assert response.headers["retry-after"] == "1"
        assert response.json()["checks"] == {"app": "starting"}


def test_a_taken_port_is_refused_with_an_os_error(starting):
    with pytest.raises(OSError):
        StartingPage("127.0.0.1", starting.port)


def test_the_app_serves_on_the_handed_over_socket_without_refusing_anyone(starting):
    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"the app"})

    listening = starting.hand_over()
    # Nothing serves the socket now: a new connection waits in its backlog, not refused.
    waiting = socket.create_connection(("127.0.0.1", starting.port), timeout=10)
    waiting.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    server = AppServer(app, "127.0.0.1", starting.port, sock=listening).start()
    try:
        reply = b""
        while chunk := waiting.recv(4096):
            reply += chunk
        assert reply.startswith(b"HTTP/1.1 200") and b"\r\nthe app\r\n" in reply
        assert httpx.get(f"http://127.0.0.1:{starting.port}/").text == "the app"
    finally:
        waiting.close()
        server.close()


def test_the_model_starts_loading_only_when_asked_after_serving(tmp_path):
    import app
    from agents.models.scripted import ScriptedModel
    from smolui.app.model_loader import ModelLoader
    from smolui.app.settings import Settings

    built = threading.Event()

    def build(spec: str) -> ScriptedModel:
        built.set()
        return ScriptedModel(model_id=f"model for {spec}")

    loader = ModelLoader("local", build=build)
    asked = threading.Event()  # set when anything asks the loader to start
    start = loader.start

    def start_and_note() -> None:
        asked.set()
        start()

    loader.start = start_and_note
    settings = Settings(data_dir=str(tmp_path / "data"), upload_folder=str(tmp_path / "up"))
    ui = app.build_ui(settings, loader)
    assert "loading" in ui.model_label()
    # Loading starts only through `start`: not asked means no build is under way or to come.
    assert not asked.is_set() and not built.is_set()  # building the UI left the model alone
    app.start_model(settings, loader)
    assert loader.get(timeout=10).model_id == "model for local"
    assert ui.model_label() == "model for local"  # the loaded model names itself


@pytest.mark.slow
def test_app_py_answers_with_the_starting_page_then_serves_the_chat(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", SMOLUI_LOG_LEVEL="WARNING")
    options = [
        "--model",
        "scripted:hello",
        "--port",
        str(port),
        "--data-dir",
        str(tmp_path / "data"),
        "--upload-folder",
        str(tmp_path / "uploads"),
    ]
    process = subprocess.Popen(
        [sys.executable, "app.py", *options], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        first = _first_chunk(base + "/", process)
        assert "smolui is starting" in first  # gradio takes seconds to import: not served yet
        for _ in range(5):  # a page is held until the app serves, or at most HOLD_S
            asked = time.monotonic()
            page = httpx.get(base + "/", timeout=HOLD_S + 30).text
            if "is starting" not in page:
                break
            assert page.rstrip().endswith("location.reload()</script></body></html>")
            if time.monotonic() - asked < HOLD_S - 5:  # released: the app serves now
                assert httpx.get(base + "/config", timeout=10).status_code == 200
        assert "is starting" not in httpx.get(base + "/", timeout=10).text
        assert httpx.get(base + "/config", timeout=10).status_code == 200
        assert httpx.get(base + "/readyz", timeout=10).status_code == 200
    finally:
        process.terminate()
        _, errors = process.communicate(timeout=30)
    assert "Traceback" not in errors


def _first_chunk(url: str, process: subprocess.Popen, timeout: float = 60.0) -> str:
    """The first piece of the first 200 answer at `url` (retried until the port answers)."""

    def answer() -> str | None:
        assert process.poll() is None, process.stderr.read()
        try:
            with httpx.stream("GET", url, timeout=timeout) as response:
                if response.status_code == 200:
                    return next(response.iter_text())
        except httpx.TransportError:
            pass
        return None

    return wait_for(answer, f"{url} answered 200", timeout=timeout, poll=0.05)
