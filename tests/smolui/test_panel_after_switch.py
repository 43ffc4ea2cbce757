"""The side panel after a version switch (issue 31): the switch lets the conversation's agent
go, and the panel still lists the files its turns wrote, its uploads and its model, read from
the store for the page's owner (never for another owner). Real parts: a SQLite file and the
real PostgreSQL server, the real output-file store, CodeAgents with the in-process executor
and a tool that writes into the conversation's working folder; only the model is scripted."""

from __future__ import annotations

from pathlib import Path

import gradio as gr
import pytest

from agents.loop.code_agent import CodeAgent
from agents.models.scripted import ScriptedModel
from smolui.api.file_routes import FILES_PREFIX
from smolui.handlers.chat import ChatHandlers, HandlerConfig
from smolui.handlers.message_actions import MessageActions
from smolui.render.panel import WRITTEN_HEADING
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from smolui.store.outputs import OutputFiles
from smolui.store.quota import OwnerQuota
from smolui.turns.turn_files import TurnFiles
from smolui.ui.wiring import adapters
from smolui.uploads import UploadPolicy
from smolui.uploads.folders import work_folder
from tests.smolui.app_process import AppProcess
from tests.smolui.test_conversations import by_task
from tools import tool

MODEL = "hf:Example/Garden-7B"
NO_FILES = "No files yet"
PAGE = gr.Request(username=None, session_hash="page-1")
RULES = {
    "report": "<code>\nwrite_report()\nfinal_answer('The report is written.')\n</code>",
    "thanks": "<code>\nfinal_answer('You are welcome.')\n</code>",
    "notes": "<code>\nfinal_answer('Noted.')\n</code>",
}


def report_tool(upload_dir: Path):
    """A tool that writes report.csv in the conversation's working folder, as code does."""

    @tool
    def write_report() -> str:
        """Writes the monthly report."""
        folder = work_folder(upload_dir)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "report.csv").write_text("month,total\nJan,3\n", encoding="utf-8")
        return "written"

    return write_report


class App(AppProcess):
    """One app process whose turns keep the files they write (as the app wires `TurnFiles`)."""

    def __init__(self, url: str, data: Path):
        config = HandlerConfig(policy=UploadPolicy(), max_steps=3, executor_type="local")
        super().__init__(
            SessionRegistry(self._agent, data / "uploads", media_root=data / "media"),
            open_store(data, url, data / "uploads", data / "media"),
            [str(data / "media")],
            config,
        )
        store = self.keeper.store
        outputs = OutputFiles(store.engine, store.files, OwnerQuota(store.engine, 0))
        files = TurnFiles(lambda: outputs, FILES_PREFIX)
        self.chat = ChatHandlers(self.registry, config, self.keeper, files=files)
        self.actions = MessageActions(self.chat)

    def _agent(self, upload_dir: Path, model: str | None = None) -> CodeAgent:
        scripted = ScriptedModel([by_task(RULES)], loop=True)
        return CodeAgent([report_tool(upload_dir)], scripted, executor_type="local",
                         verbosity_level=-1)  # fmt: skip


@pytest.fixture
def app(store_url, tmp_path):
    app = App(store_url, tmp_path / "data")
    yield app
    app.close()


@pytest.fixture
def notes(tmp_path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text("Sales went up in January.\n", encoding="utf-8")
    return path


def switched_back(app: App, notes: Path) -> tuple[str, dict, str]:
    """A message with an upload, then a turn that writes report.csv; the person edits that
    turn's message (a branch whose turn writes nothing) and switches back. Returns the id, the
    page's state and the panel shown before the edit."""
    conversation_id, chat, state, _ = app.pages.load(None, page="page-1")
    assert app.pages.pick_model(MODEL, conversation_id)
    chat = app.send("Keep my notes", conversation_id, chat, files=(str(notes),))
    chat = app.send("Write the monthly report", conversation_id, chat)
    before = app.chat.side_panel(conversation_id, owner=state["owner"])
    at = next(i for i, m in enumerate(chat) if m.get("content") == "Write the monthly report")
    edited = app.actions.edit(chat, conversation_id, at, "thanks", "Write the monthly report")
    chat = list(app.chat.run_turn(edited.pending, edited.chat, conversation_id))[-1][0]
    [edited_version] = app.actions.versions(conversation_id)
    back = app.actions.switch(chat, conversation_id, edited_version["position"], -1)
    assert back.notice is None and "The report is written." in str(back.chat)
    assert app.registry.get(conversation_id) is None, "the switch let the agent go"
    return conversation_id, state, before


def test_a_switch_leaves_the_panel_listing_the_files_uploads_and_model(app, notes):
    conversation_id, state, before = switched_back(app, notes)
    panel = app.chat.side_panel(conversation_id, owner=state["owner"])
    assert NO_FILES not in panel
    assert WRITTEN_HEADING in panel and "[report.csv · message 2](" in panel
    assert "another branch" not in panel, "placed against the branch shown"
    assert "| notes.txt |" in panel, "the upload is listed"
    assert panel.splitlines()[0] == before.splitlines()[0] and "Garden" in panel, "its model"
    link = panel[panel.index("[report.csv") :].split("](", 1)[1].split(")", 1)[0]
    assert link.startswith(f"{FILES_PREFIX}/") and link in before, "the same download link"


def test_another_owner_is_shown_nothing_of_it(app, notes):
    conversation_id, _, _ = switched_back(app, notes)
    panel = app.chat.side_panel(conversation_id, owner="someone-else")
    assert NO_FILES in panel and "report.csv" not in panel and "notes.txt" not in panel
    assert "Garden" not in panel


def test_the_page_refresh_after_the_switch_draws_the_stored_panel(app, notes):
    conversation_id, state, _ = switched_back(app, notes)
    fn = adapters(app.chat, app.pages)
    panel = fn["after_turn"](conversation_id, state, PAGE, None)[2]
    assert "[report.csv · message 2](" in panel and "| notes.txt |" in panel
    stranger = fn["after_turn"](conversation_id, {"owner": "x" * 43}, PAGE, None)[2]
    assert "report.csv" not in stranger and NO_FILES in stranger


def test_picking_a_model_after_the_switch_keeps_the_stored_panel(app, notes):
    conversation_id, state, _ = switched_back(app, notes)
    fn = adapters(app.chat, app.pages)
    request = gr.Request()  # a request without sign-in: the page's own state names the owner
    panel = fn["pick_model"](MODEL, conversation_id, state, request, None)
    assert "[report.csv · message 2](" in panel and "| notes.txt |" in panel
    stranger = fn["pick_model"](MODEL, conversation_id, {"owner": "x" * 43}, request, None)
    assert "report.csv" not in stranger and NO_FILES in stranger
