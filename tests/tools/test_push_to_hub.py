"""`push_folder_to_hub`: what `Tool.push_to_hub` uploads, against a fake `HfApi` (no network)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import huggingface_hub
import pytest

from tools import tool
from tools.hub import push_folder_to_hub


@tool
def double(x: int) -> int:
    """Twice a number.

    Args:
        x: The number.
    """
    return 2 * x


class FakeHfApi:
    calls: list[tuple[str, Any]] = []

    def __init__(self, token: Any = None) -> None:
        self.calls.append(("token", token))

    def create_repo(self, repo_id: str, **kwargs: Any) -> None:
        self.calls.append(("create_repo", repo_id, kwargs))

    def upload_folder(self, folder_path: str, **kwargs: Any) -> str:
        files = sorted(p.name for p in Path(folder_path).iterdir())
        self.calls.append(("upload_folder", files, kwargs))
        return "https://hub.example/commit/1"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    FakeHfApi.calls = []
    monkeypatch.setattr(huggingface_hub, "HfApi", FakeHfApi)
    return FakeHfApi.calls


def test_tool_push_to_hub_uploads_its_saved_folder(hub: list[tuple[str, Any]]) -> None:
    url = double.push_to_hub("me/double", commit_message="first", token="t-1", create_pr=True)
    assert url == "https://hub.example/commit/1"
    assert hub[0] == ("token", "t-1")
    assert hub[1][:2] == ("create_repo", "me/double") and hub[1][2]["repo_type"] == "space"
    _, files, options = hub[2]
    assert files == ["app.py", "requirements.txt", "tool.py"]
    assert options["commit_message"] == "first" and options["create_pr"] is True


def test_push_folder_to_hub_uploads_what_save_wrote(hub: list[tuple[str, Any]]) -> None:
    def save(folder: str) -> None:
        (Path(folder) / "agent.json").write_text("{}")

    push_folder_to_hub(save, "me/agent", "Upload agent")
    assert hub[2][1] == ["agent.json"]
