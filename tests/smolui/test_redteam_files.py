"""Red-team finding: a visitor names a file on the server as their attachment.

The page's events take attachments as file paths, which gradio's own upload route handed the
page. A client speaking gradio's protocol directly can send any path instead; the served app
must refuse what was not uploaded, or the file is copied into gradio's cache (served back to
anyone) and into the conversation (read by the agent)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.harness import ScriptedApp

SECRET = "server-only secret 7f3a"


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Iterator[ScriptedApp]:
    folder = tmp_path_factory.mktemp("redteam-files")
    served = ScriptedApp(folder / "uploads", executor="local")
    yield served.start()
    served.stop()


def call(app: ScriptedApp, session: str, api_name: str, data: list) -> dict:
    """One event through gradio's queue, as the page sends it; its last message."""
    config = httpx.get(app.url + "config", timeout=60).json()
    events = config["dependencies"]
    index = next(i for i, event in enumerate(events) if event.get("api_name") == api_name)
    body = {"data": data, "fn_index": events[index].get("id", index), "session_hash": session,
            "event_data": None, "trigger_id": None}  # fmt: skip
    joined = httpx.post(app.url + "gradio_api/queue/join", json=body, timeout=60)
    assert joined.status_code == 200, joined.text
    params = {"session_hash": session}
    with httpx.stream("GET", app.url + "gradio_api/queue/data", params=params, timeout=120) as s:
        for line in s.iter_lines():
            message = json.loads(line[5:]) if line.startswith("data:") else {}
            if message.get("msg") == "process_completed":
                return message
    raise AssertionError(f"{api_name} never completed")


def test_a_file_on_the_server_cannot_be_sent_as_an_attachment(app, tmp_path):
    secret = tmp_path / "config.txt"  # any file the app may read, with an accepted extension
    secret.write_text(SECRET + "\n")
    attachment = {"path": str(secret), "orig_name": "config.txt",
                  "meta": {"_type": "gradio.FileData"}}  # fmt: skip
    message = {"text": "what does my file say?", "files": [attachment]}
    answer = call(app, uuid.uuid4().hex[:11], "echo", [message, [], None, None])
    # Before the fix the echo answered with the file copied into gradio's cache, and its
    # link served the secret to anyone.
    assert not answer["success"]
    assert SECRET not in json.dumps(answer)
    assert str(secret) not in json.dumps(answer)  # nor the path, in the error
    assert "config.txt" not in json.dumps(answer)  # no cached copy named to the page
    kept = [Path(app.settings.data_dir), Path(app.settings.upload_folder)]
    copies = [p for root in kept for p in root.rglob("*.txt") if SECRET in p.read_text()]
    assert copies == []


def test_a_file_uploaded_through_gradio_s_route_is_still_taken(app, tmp_path):
    upload = httpx.post(app.url + "gradio_api/upload", timeout=60,
                        files=[("files", ("notes.txt", b"my own notes\n", "text/plain"))])  # fmt: skip
    assert upload.status_code == 200
    attachment = {"path": upload.json()[0], "orig_name": "notes.txt",
                  "meta": {"_type": "gradio.FileData"}}  # fmt: skip
    message = {"text": "read my notes", "files": [attachment]}
    answer = call(app, uuid.uuid4().hex[:11], "echo", [message, [], None, None])
    assert answer["success"], answer
