"""The app's side of remote executors: `--executor jupyter --executor-url`, the agents the
factory builds, and the side panel saying where code runs."""

from __future__ import annotations

import pytest

from agents.executors.remote import JupyterExecutor
from smolui.app.factory import AgentFactory
from smolui.app.settings import Settings, settings_from_args
from smolui.render.panel import side_panel


def test_flags_and_environment_choose_a_jupyter_gateway():
    settings = settings_from_args(
        ["--executor", "jupyter", "--executor-url", "http://127.0.0.1:8888"], {}
    )
    assert (settings.executor, settings.executor_url) == ("jupyter", "http://127.0.0.1:8888")
    env = {"SMOLUI_EXECUTOR": "jupyter", "SMOLUI_EXECUTOR_URL": "http://kg:8888"}
    assert settings_from_args([], env).executor_url == "http://kg:8888"
    assert settings_from_args(["--executor", "docker"], {}).executor == "docker"


@pytest.mark.parametrize(
    ("argv", "problem"),
    [(["--executor", "jupyter"], "--executor-url"), (["--executor", "cloud"], "one of")],
)
def test_bad_executor_settings_are_refused(argv, problem, capsys):
    with pytest.raises(SystemExit):
        settings_from_args(argv, {})
    assert problem in capsys.readouterr().err


def test_the_factory_builds_a_jupyter_agent_that_copies_uploads(tmp_path, monkeypatch):
    monkeypatch.setenv("SMOLUI_EXECUTOR_TOKEN", "from-env")
    settings = Settings(
        model="scripted:demo", executor="jupyter", executor_url="http://127.0.0.1:9"
    )
    agent = AgentFactory(settings, loader=None)(tmp_path / "uploads")
    try:
        executor = agent.executor
        assert isinstance(executor, JupyterExecutor)
        assert (executor.url, executor.token) == ("http://127.0.0.1:9", "from-env")
        (tmp_path / "uploads" / "a.csv").write_text("x\n1\n")
        paths, notes = executor.uploads.pending()
        assert paths == [str(tmp_path / "uploads" / "a.csv")] and notes == []
        panel = side_panel("m", agent, "jupyter", 3, [])
        assert "**Code runs in:** a separate code server" in panel
    finally:
        agent.close()
