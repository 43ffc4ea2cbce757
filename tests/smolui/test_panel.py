"""The side panel's states: before the first message, during a turn, after it."""

from __future__ import annotations

from agents.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel
from smolui.panel import IDLE, RUNNING, side_panel


def test_before_the_first_message_the_panel_says_what_will_happen():
    panel = side_panel("scripted", None, "sandbox", 5, [])
    assert "sandbox (starts with your first message)" in panel
    assert "No files yet" in panel and f"**Now:** {IDLE}" in panel


def test_during_a_turn_the_panel_shows_the_run_and_the_files_being_read():
    panel = side_panel("scripted", None, "sandbox", 5, [], running=True, reading=["a|b.pdf"])
    assert "sandbox (starting…)" in panel and "starts with your first message" not in panel
    assert f"**Now:** {RUNNING}" in panel
    assert "No files yet" not in panel and "| a\\|b.pdf | reading… | |" in panel


def test_after_a_turn_the_panel_shows_the_real_isolation():
    agent = CodeAgent([], ScriptedModel(["x"]), executor_type="local", verbosity_level=-1)
    try:
        panel = side_panel("scripted", agent, "local", None, [])
        level = agent.executor.isolation["level"]
        assert (
            f"**Sandbox:** {level}" in panel
            and f"**Max steps per message:** {agent.max_steps}" in panel
        )
    finally:
        agent.close()
