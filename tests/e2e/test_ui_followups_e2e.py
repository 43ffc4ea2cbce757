"""The chat UI's follow-ups in Chromium: a Retry pressed right after Stop runs once the stopped
turn has ended its step, an edited first message retitles the conversation, and the side
panel names the sandbox's isolation in plain words."""

from __future__ import annotations

import re
import threading

import pytest
from playwright.sync_api import expect

from agents.models.scripted import ScriptedReply
from tests.e2e.pages import CHAT, bot, send, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.waiting import GENEROUS_S

pytestmark = pytest.mark.e2e

USER = f'{CHAT} [data-testid="user"]'


def test_retry_right_after_stop_runs_once_the_stopped_step_ends(app, open_page):
    # The app runs in this process: gates hold each model call open until the test lets it
    # answer. The stopped step ends only after Retry was pressed and seen waiting; the retried
    # step answers only after the page showed it running with Stop enabled.
    stopped_reached, stopped_gate = threading.Event(), threading.Event()
    retried_reached, retried_gate = threading.Event(), threading.Event()
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "long job": [
                ScriptedReply(
                    "Thought: thinking for a long time", reached=stopped_reached, gate=stopped_gate
                ),
                ScriptedReply(
                    "<code>\nfinal_answer('done after retry')\n</code>",
                    reached=retried_reached,
                    gate=retried_gate,
                ),
            ]
        }
    )
    try:
        page = open_page(app.url)
        send(page, "long job")
        stop = page.locator(".stop-button")
        expect(page.locator(f"{CHAT} .loading-spinner").first).to_be_visible()  # the step runs
        assert stopped_reached.wait(GENEROUS_S), "the first model call began"
        expect(stop).to_be_enabled()
        stop.click()
        page.locator(".retry-button").click()  # the stopped step is still running
        expect(page.get_by_text("Retrying as soon as the stopped answer ends")).to_be_visible()
        expect(page.get_by_text("stop it first")).to_have_count(0)
        assert not retried_reached.is_set(), "the retry waits for the stopped step"
        stopped_gate.set()  # the stopped step ends now
        # The retry replaces the stopped answer and runs with Stop enabled, as a sent message
        # does.
        assert retried_reached.wait(GENEROUS_S), "the retry ran once the stopped step ended"
        expect(page.locator(f"{CHAT} sub", has_text="stopped")).to_have_count(0)
        expect(page.locator(USER)).to_have_count(1)
        expect(stop).to_be_enabled()
        retried_gate.set()
        expect(bot(page, "done after retry")).to_be_visible()
        wait_turn_done(page)
        expect(stop).to_be_disabled()
        expect(page.locator(f"{CHAT} sub", has_text="answered")).to_have_count(1)
    finally:  # never leave the app's agent held for the next test
        stopped_gate.set()
        retried_gate.set()


def test_an_edited_first_message_retitles_the_conversation_and_the_panel_names_the_sandbox(
    app, open_page
):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "apples": ["<code>\nfinal_answer('about apples')\n</code>"],
            "pears": ["<code>\nfinal_answer('about pears')\n</code>"],
        }
    )
    page = open_page(app.url)
    send(page, "tell me about apples")
    wait_turn_done(page)
    listed = page.locator(".conversation-list label")
    expect(listed.filter(has_text="tell me about apples")).to_have_count(1)
    page.locator(f'{CHAT} button[aria-label="Edit"]:visible').click()
    page.locator(f"{CHAT} textarea").fill("tell me about pears")
    page.locator(f'{CHAT} button[aria-label="Submit"]:visible').click()
    expect(bot(page, "about pears")).to_be_visible()
    wait_turn_done(page)
    expect(listed.filter(has_text="tell me about pears")).to_have_count(1)
    expect(listed.filter(has_text="tell me about apples")).to_have_count(0)
    # The side panel says what isolates the code, in words (not "Sandbox: full").
    panel = page.locator(".prose.side-panel")
    expect(panel).not_to_contain_text(re.compile(r"Sandbox:\s*full"))
    expect(panel).to_contain_text(re.compile(r"Code runs in:\s*a locked-down process"))
