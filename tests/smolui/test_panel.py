"""The side panel's states: before the first message, during a turn, after it; and its "About
this server", written for the person using the chat."""

from __future__ import annotations

from types import SimpleNamespace

from agents.loop.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel
from smolui.render.about import IN_THE_APP, SEALED, ServerFacts, code_sentence
from smolui.render.panel import AWAITING_APPROVAL, IDLE, RUNNING, describe_isolation, side_panel

# What only those who run the server need: flags, variables, sandbox layers, kernel words.
OPERATOR_WORDS = (
    "--", "SMOLUI_", "HF_TOKEN", "app.py", "Landlock", "seccomp", "namespace", "uid", "kernel",
    "executor", "Sandbox:", "Model id", "http://", "/srv/",
)  # fmt: skip


def about(panel: str) -> str:
    """The folded "About this server" part of a panel."""
    return panel[panel.index("<details>") :]


def test_before_the_first_message_the_panel_says_what_will_happen():
    panel = side_panel("scripted", None, "sandbox", 5, [])
    assert "**Code runs in:** its own process on this server, started with the first code" in panel
    assert "No files yet" in panel and f"**Now:** {IDLE}" in panel


def test_during_a_turn_the_panel_shows_the_run_and_the_files_being_read():
    panel = side_panel("scripted", None, "sandbox", 5, [], running=True, reading=["a|b.pdf"])
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
            f"**Code runs in:** {IN_THE_APP}." in panel
            and f"**Max steps per message:** {agent.max_steps}" in panel
        )
    finally:
        agent.close()


def test_a_running_sandbox_says_what_the_code_cannot_reach_in_plain_words():
    agent = CodeAgent([], ScriptedModel(["x"]), executor_type="sandbox", verbosity_level=-1)
    try:
        agent.executor.start()  # reading `isolation` starts nothing
        report = agent.executor.isolation
        text = about(side_panel("scripted", agent, "sandbox", None, []))
        if report.get("landlock") and report.get("seccomp"):
            assert f"**Code runs in:** {SEALED}." in text
            assert "cannot reach the internet, other people's conversations" in text
        else:
            assert "a separate process on this server" in text and "cannot reach" not in text
        for word in OPERATOR_WORDS:
            assert word not in text, word
    finally:
        agent.close()


def test_about_this_server_answers_a_persons_questions_without_operator_words():
    facts = ServerFacts(retention_days=30, accounts=True, anonymous_too=False, sharing="public")
    panel = side_panel("openai:gpt-4o-mini@http://10.0.0.2:8080/v1", None, "docker", 8, [],
                       facts=facts)  # fmt: skip
    text = about(panel)
    assert "**Answers come from:** `gpt-4o-mini`, a model server chosen by" in text
    assert "your messages and the text of your files are sent to it" in text
    assert "**Code runs in:** a container of its own, started with the first code" in text
    assert "one you have not used for 30 days is deleted" in text
    assert "**Who can see them:** you, signed in, from any browser, and the people" in text
    assert "a read-only copy to anyone who has it" in text
    for word in OPERATOR_WORDS:
        assert word not in panel, word

    plain = about(side_panel("scripted:/srv/h7/replies.json", None, "local", 3, []))
    assert "until you delete them" in plain and "whoever uses this browser" in plain
    assert "share link" not in plain and "`scripted:replies.json`" in plain
    assert (
        "**Answers come from:** `local`, a model that runs on this server: your messages"
        " stay here" in side_panel("local", None, "sandbox", 3, [])
    )
    for word in OPERATOR_WORDS:
        assert word not in plain, word


def test_a_remote_kernel_names_its_host_and_a_local_executor_says_there_is_none():
    remote = {"remote": True, "level": "remote Jupyter kernel on gpu-box:8888 (isolated by ...)"}
    assert describe_isolation(remote, "jupyter").startswith("remote Jupyter kernel on gpu-box:8888")
    assert describe_isolation({"process": False}, "local").startswith("none: code runs inside")
    partial = {"process": True, "landlock": True, "rlimits": True}
    assert describe_isolation(partial, "sandbox") == (
        "separate process: Landlock, memory/CPU limits (missing: seccomp)"
    )
    before = side_panel("scripted", None, "jupyter", 5, [])
    assert "**Code runs in:** a separate code server run by the people who run" in before


def test_a_container_says_whether_it_reaches_the_network_once_it_is_known():
    def with_level(level: str) -> SimpleNamespace:  # an agent whose executor reports `level`
        return SimpleNamespace(executor=SimpleNamespace(isolation={"level": level}))

    offline = code_sentence(with_level("Docker container 3f2a (no network, non-root)"), "docker")
    assert offline == "a container of its own, with no internet"
    online = code_sentence(with_level("Docker container 3f2a (network 'bridge')"), "docker")
    assert online == "a container of its own, with network access" and "3f2a" not in online
