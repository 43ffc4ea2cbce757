"""Conversations outlive the process: kill -9 the app, start it again, reload, continue."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import free_port
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, reload_after_restart, send, wait_turn_done
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
SLOW = 30_000  # ms: app processes start and restart on a busy 2-core machine


class AppProcess:
    """`tests/e2e/restart_app.py` in its own process on one port and data folder."""

    def __init__(self, data: Path, calls: Path, database_url: str | None = None):
        self.port, self.data, self.calls = free_port(), data, calls
        self.database_url = database_url
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> AppProcess:
        args = [sys.executable, "-m", "tests.e2e.restart_app", str(self.port), str(self.data),
                str(self.calls)] + ([self.database_url] if self.database_url else [])  # fmt: skip
        self.process = subprocess.Popen(args, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        wait_for(self._answers, "the app answers on its port", timeout=90, poll=0.3)
        return self

    def _answers(self) -> bool:
        """Whether the app answers HTTP yet (raises once its process has exited)."""
        if self.process.poll() is not None:
            raise RuntimeError(f"the app exited with {self.process.returncode}")
        try:
            with urllib.request.urlopen(self.url, timeout=2):
                return True
        except OSError:
            return False

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def terminate(self) -> None:
        """Stop it as a supervisor does (SIGTERM); it must end on its own, with status 0."""
        assert self.process is not None and self.process.poll() is None
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(timeout=120) == 0, "the app ends cleanly on SIGTERM"


@pytest.fixture
def processes():
    started: list[AppProcess] = []
    yield started
    for process in started:
        process.kill()


def last_call(calls: Path) -> str:
    return "\n".join(json.loads(calls.read_text().splitlines()[-1]))


def test_a_conversation_survives_kill_9_and_a_restart(tmp_path, processes, new_page):
    data, calls = tmp_path / "data", tmp_path / "calls.jsonl"
    notes = tmp_path / "notes.txt"
    notes.write_text("Bay three harvested 412 kilograms of tomatoes.\n")
    first = AppProcess(data, calls)
    processes.append(first.start())
    page = new_page(first.url)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=SLOW)  # a fresh process loads slowly
    send(page, "My favourite colour is teal.", files=[str(notes)])
    expect(bot(page, "Noted teal.")).to_be_visible(timeout=SLOW)
    wait_turn_done(page)
    first.kill()

    second = AppProcess(data, calls)
    second.port = first.port  # the same address: the page reloads where it was
    processes.append(second.start())
    reload_after_restart(page)
    expect(page.locator(f'{CHAT} [data-testid="user"]', has_text="favourite colour")).to_be_visible(
        timeout=SLOW
    )
    expect(bot(page, "Noted teal.")).to_be_visible(timeout=SLOW)
    expect(page.locator(CHAT)).not_to_contain_text("not kept", timeout=SLOW)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=SLOW)
    send(page, "Which colour did I name?")
    expect(bot(page, "You named a colour earlier.")).to_be_visible(timeout=SLOW)
    sent = last_call(calls)
    assert "My favourite colour is teal." in sent and "Noted teal." in sent
    assert "Which colour did I name?" in sent
    # The file attached before the kill is in the data folder: the document tool reads it.
    assert [p.read_text() for p in (data / "uploads").rglob("notes.txt")] == [notes.read_text()]
    send(page, "What do my notes say?")
    expect(bot(page, "412 kilograms")).to_be_visible(timeout=SLOW)


def test_two_processes_on_one_postgresql_continue_each_others_conversations(
    tmp_path, processes, new_page, postgres_server
):
    url = postgres_server.create_database()
    data, calls = tmp_path / "data", tmp_path / "calls.jsonl"
    replica_a, replica_b = AppProcess(data, calls, url), AppProcess(data, calls, url)
    processes += [replica_a.start(), replica_b.start()]
    page = new_page(replica_a.url)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=SLOW)
    send(page, "My favourite colour is teal.")
    expect(bot(page, "Noted teal.")).to_be_visible(timeout=SLOW)
    wait_turn_done(page)
    # A load balancer would keep one origin; here the browser's owner key moves to B by hand.
    owner = page.evaluate("() => window.localStorage.getItem('smolui-owner')")
    other = new_page(replica_b.url)
    other.evaluate("value => window.localStorage.setItem('smolui-owner', value)", owner)
    other.reload()
    expect(bot(other, "Noted teal.")).to_be_visible(timeout=SLOW)
    send(other, "Which colour did I name?")
    expect(bot(other, "You named a colour earlier.")).to_be_visible(timeout=SLOW)
    sent = last_call(calls)
    assert "My favourite colour is teal." in sent and "Noted teal." in sent


def test_a_reload_during_a_running_turn_reattaches_to_it(app, new_page):
    # The code waits for the test, so the page reloads while the turn surely still runs.
    code = (
        "<code>\nprint('working')\nwait_for_test('reload')\nfinal_answer('Took my time.')\n</code>"
    )
    app.model_options = {"loop": True}
    app.script = lambda: [code]
    step_runs = app.gate("reload")
    page = new_page(app.url)
    send(page, "Answer slowly please.")
    expect(page.locator(f"{CHAT} .loading-spinner").first).to_be_visible(timeout=SLOW)
    expect(page.locator(CHAT)).to_contain_text("wait_for_test", timeout=SLOW)  # the model answered
    page.reload()
    expect(page.locator(f'{CHAT} [data-testid="user"]', has_text="Answer slowly")).to_be_visible(
        timeout=SLOW
    )
    step_runs.open()
    expect(bot(page, "Took my time.")).to_be_visible(timeout=SLOW)
    wait_turn_done(page)
    assert len(app.agents[-1].model.calls) == 1, "the turn was neither stopped nor run twice"


def test_the_conversation_list_searches_renames_and_deletes(app, new_page):
    app.model_options = {"loop": True}
    app.script = lambda: ["<code>\nfinal_answer('Answered.')\n</code>"]
    page = new_page(app.url)
    send(page, "Tell me about tomatoes.")
    wait_turn_done(page)
    page.locator(".new-chat-button").click()
    # The new chat is open (its empty chat shown) before the next message goes to it.
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0, timeout=SLOW)
    send(page, "Tell me about figs.")
    wait_turn_done(page)
    items = page.locator(".conversation-list label")
    expect(items).to_have_count(2, timeout=SLOW)
    expect(items.first).to_contain_text("Tell me about figs.")  # newest first
    page.get_by_placeholder("Search conversations…").fill("tomat")
    expect(items).to_have_count(1, timeout=SLOW)
    expect(items.first).to_contain_text("tomatoes")
    page.get_by_placeholder("Search conversations…").fill("")
    expect(items).to_have_count(2, timeout=SLOW)
    page.locator(".conversation-manage").get_by_text("Manage conversation").click()
    page.get_by_placeholder("New title").fill("Fig notes")
    page.locator(".rename-button").click()
    expect(items.first).to_contain_text("Fig notes", timeout=SLOW)
    page.once("dialog", lambda dialog: dialog.accept())  # Delete asks first
    page.locator(".delete-button").click()
    expect(items).to_have_count(1, timeout=SLOW)
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0)
    page.once("dialog", lambda dialog: dialog.accept())  # so does Delete all
    page.locator(".delete-all-button").click()
    expect(items).to_have_count(0, timeout=SLOW)
