"""smolagents' GradioUI, imports changed only: `GradioUI(agent, file_upload_folder=None,
reset_agent_memory=False)`, `upload_file`, `interact_with_agent`, and the agent's own
`max_steps` (without the app's settings) for a turn."""

from __future__ import annotations

from pathlib import Path

from agents import CodeAgent, ScriptedModel
from smolui import GradioUI
from smolui.handlers.chat import ChatHandlers

STEP = "Thought: keep going.\n<code>\nprint('step')\n</code>"
ANSWER = "Thought: done.\n<code>\nfinal_answer('finished')\n</code>"


def test_gradio_ui_accepts_smolagents_arguments(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    agent = CodeAgent(tools=[], model=ScriptedModel([]), executor_type="local", verbosity_level=-1)
    ui = GradioUI(agent, file_upload_folder=None, reset_agent_memory=True)
    assert ui.upload_root == Path("uploads") and ui.reset_agent_memory is True
    assert GradioUI(agent=agent).max_steps is None


def test_a_turn_runs_up_to_the_agents_own_max_steps(tmp_path: Path) -> None:
    # 12 steps: more than the app's default limit of 10 steps per turn.
    model = ScriptedModel([STEP] * 11 + [ANSWER])
    agent = CodeAgent(
        tools=[], model=model, executor_type="local", max_steps=12, verbosity_level=-1
    )
    ui = GradioUI(agent, file_upload_folder=tmp_path / "uploads")
    handlers = ChatHandlers(ui.registry, ui.handler_config())
    shown, pending = handlers.echo({"text": "go", "files": []}, [])
    final_chat, _ = list(handlers.run_turn(pending, shown, None))[-1]
    assert any(m.get("content") == "finished" for m in final_chat)
    assert model.remaining == 0
    ui.close()


def test_reset_agent_memory_starts_each_turn_afresh(tmp_path: Path) -> None:
    model = ScriptedModel([ANSWER], loop=True)
    agent = CodeAgent(tools=[], model=model, executor_type="local", verbosity_level=-1)
    ui = GradioUI(agent, file_upload_folder=tmp_path / "uploads", reset_agent_memory=True)
    chat: list = []
    for text in ("first", "second"):
        chat = list(ui.interact_with_agent(text, chat))[-1]
    tasks = [s.task for s in agent.memory.steps if type(s).__name__ == "TaskStep"]
    assert tasks == ["second"]
    assert [m["content"] for m in chat if m["role"] == "user"] == ["first", "second"]
    assert sum(m.get("content") == "finished" for m in chat) == 2


def test_interact_with_agent_keeps_the_conversation_by_default(tmp_path: Path) -> None:
    agent = CodeAgent(
        tools=[],
        model=ScriptedModel([ANSWER], loop=True),
        executor_type="local",
        verbosity_level=-1,
    )
    ui = GradioUI(agent, file_upload_folder=tmp_path / "uploads")
    session_state: dict = {}
    chat: list = []
    for text in ("first", "second"):
        chat = list(ui.interact_with_agent(text, chat, session_state))[-1]
    assert session_state["agent"] is agent
    tasks = [s.task for s in agent.memory.steps if type(s).__name__ == "TaskStep"]
    assert tasks == ["first", "second"]


def test_upload_file_stores_allowed_files_only(tmp_path: Path) -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([]), executor_type="local", verbosity_level=-1)
    ui = GradioUI(agent, file_upload_folder=tmp_path / "uploads")
    notes = tmp_path / "notes.txt"
    notes.write_text("hello from a file\n")
    status, log = ui.upload_file(str(notes), [])
    assert status.value.startswith("File uploaded: ") and len(log) == 1
    stored = Path(log[0])
    assert stored.read_text() == "hello from a file\n"
    assert stored.resolve().is_relative_to((tmp_path / "uploads").resolve())
    status, same_log = ui.upload_file(str(notes), log, allowed_file_types=[".pdf"])
    assert status.value == "File type disallowed" and same_log == log
    fake_pdf = tmp_path / "fake.pdf"
    fake_pdf.write_text("not really a pdf")
    status, same_log = ui.upload_file(str(fake_pdf), log)
    assert status.value.startswith("File refused") and same_log == log
    status, _ = ui.upload_file(None, log)
    assert status.value == "No file uploaded"


def test_log_user_message_adds_the_uploaded_files(tmp_path: Path) -> None:
    agent = CodeAgent(tools=[], model=ScriptedModel([]), executor_type="local", verbosity_level=-1)
    ui = GradioUI(agent, file_upload_folder=tmp_path / "uploads")
    task, box, button = ui.log_user_message("Summarize it", ["/data/report.pdf"])
    assert task.startswith("Summarize it\n") and "/data/report.pdf" in task
    assert box == "" and button.interactive is False
    assert ui.log_user_message("Hi", [])[0] == "Hi"
