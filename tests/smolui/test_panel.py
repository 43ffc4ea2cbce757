"""The side panel's states: before the first message, during a turn, after it."""

from __future__ import annotations

from agents.loop.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel
from smolui.render.panel import AWAITING_APPROVAL, IDLE, RUNNING, describe_isolation, side_panel


def test_before_the_first_message_the_panel_says_what_will_happen():
    panel = side_panel("scripted", None, "sandbox", 5, [])
    assert "**Sandbox:** isolated worker process (starts with your first message)" in panel
    assert "No files yet" in panel and f"**Now:** {IDLE}" in panel


def test_during_a_turn_the_panel_shows_the_run_and_the_files_being_read():
    panel = side_panel("scripted", None, "sandbox", 5, [], running=True, reading=["a|b.pdf"])
    assert (
        "isolated worker process (starting…)" in panel
        and "starts with your first message" not in panel
    )
    assert f"**Now:** {RUNNING}" in panel
    assert "No files yet" not in panel and "| a\\|b.pdf | reading… | |" in panel


def test_a_turn_waiting_for_an_approval_says_so_and_where_not_answering():
    panel = side_panel("scripted", None, "sandbox", 5, [], running=True, awaiting_approval=True)
    assert f"**Now:** {AWAITING_APPROVAL}" in panel and RUNNING not in panel
    assert "waiting for your approval" in AWAITING_APPROVAL and "in the chat" in AWAITING_APPROVAL


def test_after_a_turn_the_panel_shows_the_real_isolation():
    agent = CodeAgent([], ScriptedModel(["x"]), executor_type="local", verbosity_level=-1)
    try:
        panel = side_panel("scripted", agent, "local", None, [])
        assert (
            "**Sandbox:** none: code runs inside the app's own process" in panel
            and f"**Max steps per message:** {agent.max_steps}" in panel
        )
    finally:
        agent.close()


def test_the_sandbox_names_its_active_layers_in_plain_words():
    agent = CodeAgent([], ScriptedModel(["x"]), executor_type="sandbox", verbosity_level=-1)
    try:
        agent.executor.start()  # reading `isolation` starts nothing
        report = agent.executor.isolation
        panel = side_panel("scripted", agent, "sandbox", None, [])
        assert "**Sandbox:** separate process" in panel and "full" not in panel
        if report.get("landlock") and report.get("seccomp"):
            assert "Landlock + seccomp" in panel
        if report.get("own_uid"):
            assert "own uid" in panel
        if not report.get("seccomp"):
            assert "missing: seccomp" in panel
    finally:
        agent.close()


def test_a_remote_kernel_names_its_host_and_a_local_executor_says_there_is_none():
    remote = {"remote": True, "level": "remote Jupyter kernel on gpu-box:8888 (isolated by ...)"}
    assert describe_isolation(remote, "jupyter").startswith("remote Jupyter kernel on gpu-box:8888")
    assert describe_isolation({"process": False}, "local").startswith("none: code runs inside")
    partial = {"process": True, "landlock": True, "rlimits": True}
    assert describe_isolation(partial, "sandbox") == (
        "separate process: Landlock, memory/CPU limits (missing: seccomp)"
    )
    before = side_panel("scripted", None, "jupyter", 5, [])
    assert "**Code runs in:** jupyter executor (starts with your first message)" in before
