"""The real app in Chromium, with scripted models: what a visitor sees and what the agent gets."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from agents.models.messages import content_text
from agents.models.scripted import ScriptedReply
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, spinners, step_title, wait_turn_done
from tests.waiting import GENEROUS_S

pytestmark = pytest.mark.e2e


def last_task(messages: list[dict]) -> str:
    """The most recent task the agent was given, from the messages sent to the model."""
    text = all_text([m for m in messages if m.get("role") == "user"])
    marker = text.rfind("New task:")
    return text[marker:] if marker >= 0 else ""


def all_text(messages: list[dict]) -> str:
    return "\n".join(content_text(m.get("content")) for m in messages)


def by_task(rules: dict[str, list]) -> list:
    """One looping reply that answers by the current task: `{keyword: [reply per step]}`."""
    counters: dict[str, int] = {}

    def reply(messages: list[dict]):
        task = last_task(messages)
        for keyword, replies in rules.items():
            if keyword in task:
                index = counters.get(keyword, 0)
                counters[keyword] = index + 1
                return replies[min(index, len(replies) - 1)]
        return "<code>\nfinal_answer('no rule')\n</code>"

    return [reply]


def test_multistep_turn_renders_pending_then_done_steps(app, new_page):
    app.model_options = {"loop": True}
    step_runs = app.gate("step 1")  # the first step's code runs until the page was seen
    app.script = lambda: by_task({"6*7": [
        ScriptedReply("Thought: compute it slowly.\n<code>\nx = 6 * 7\n"
                      "print('x is', x)\nwait_for_test('step 1')\n</code>", chunk_size=8),
        ScriptedReply("Thought: answer.\n<code>\nfinal_answer(f'The answer is {x}')\n</code>"),
    ]})  # fmt: skip
    page = new_page(app.url)
    send(page, "what is 6*7?")
    expect(page.locator(f'{CHAT} [data-testid="user"]', has_text="what is 6*7?")).to_be_visible()
    running = step_title(page, "Step 1")
    expect(running.locator(".loading-spinner")).to_be_visible()
    expect(running).to_contain_text("running code")
    step_runs.open()
    expect(bot(page, "The answer is 42").last).to_be_visible()
    wait_turn_done(page)
    expect(spinners(page)).to_have_count(0)
    expect(step_title(page, "Step 1 · ran code")).to_be_visible()
    expect(step_title(page, "Step 2 · ran code · answered")).to_be_visible()
    step_title(page, "Step 1 · ran code").click()
    expect(
        page.locator(f"{CHAT} code.language-python", has_text="print('x is', x)")
    ).to_be_visible()
    expect(page.locator(f"{CHAT} code.language-text", has_text="x is 42")).to_be_visible()
    expect(page.locator(f"{CHAT} sub", has_text="2 steps")).to_be_visible()


def test_second_turn_remembers_the_first(app, new_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({
        "teal": ["<code>\nfavourite = 'teal'\nfinal_answer('Noted.')\n</code>"],
        "Which colour": ["<code>\nfinal_answer('You said ' + favourite)\n</code>"],
    })  # fmt: skip
    page = new_page(app.url)
    send(page, "My favourite colour is teal.")
    wait_turn_done(page)
    agent = app.agents[-1]
    send(page, "Which colour do I like?")
    expect(bot(page, "You said teal")).to_be_visible()
    wait_turn_done(page, turns=2)
    assert "My favourite colour is teal." in all_text(agent.model.calls[-1]), "memory kept"
    keys = page.evaluate("() => Object.keys(window.localStorage)")
    assert not [k for k in keys if k.startswith("gradio:run-history")], (
        "gradio's run history (a second, growing copy of every call's chat) is off"
    )
    assert any("smolui" in k for k in keys), "the owner key and current conversation are stored"


def test_two_browser_contexts_are_isolated(app, new_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({
        "kiwi": ["<code>\nsecret = 'kiwi'\nfinal_answer('Stored.')\n</code>"],
        "secret": ["<code>\nfinal_answer('I see ' + secret)\n</code>",
                   "<code>\nfinal_answer('I have no secret')\n</code>"],
    })  # fmt: skip
    alice = new_page(app.url)
    send(alice, "Remember the word kiwi.")
    wait_turn_done(alice)
    alice_agent = app.agents[-1]
    bob = new_page(app.url)
    send(bob, "Tell me the secret.")
    expect(bot(bob, "I have no secret")).to_be_visible()
    wait_turn_done(bob)
    bob_agent = app.agents[-1]
    assert bob_agent is not alice_agent
    assert "kiwi" not in all_text(bob_agent.model.calls[-1])
    step_title(bob, "Step 1").click()
    expect(bob.locator(CHAT, has_text="secret")).to_be_visible()
    expect(bob.locator(f'{CHAT} [data-testid="user"]', has_text="kiwi")).to_have_count(0)
    expect(alice.locator(f'{CHAT} [data-testid="user"]', has_text="secret")).to_have_count(0)


def test_stop_mid_run_stops_model_calls_and_the_next_message_works(app, new_page):
    app.model_options = {"loop": True}
    # The model call is held open until the page has shown the stop: Stop does not wait for it.
    called, answers = threading.Event(), threading.Event()
    long_call = ScriptedReply("Thought: thinking for a long time", reached=called, gate=answers)
    app.script = lambda: by_task({
        "long job": [long_call] * 5,
        "second": ["<code>\nfinal_answer('second turn works')\n</code>"],
    })  # fmt: skip
    page = new_page(app.url)
    send(page, "Start a long job.")
    expect(step_title(page, "Step 1").locator(".loading-spinner")).to_be_visible()
    agent = app.agents[-1]
    try:
        assert called.wait(GENEROUS_S), "the model call began"
        page.locator(".stop-button").click()
        expect(bot(page, "Stopped.")).to_be_visible()  # while the model call is still open
        expect(page.locator(f"{CHAT} sub", has_text="stopped")).to_be_visible()
        expect(spinners(page)).to_have_count(0)
    finally:
        answers.set()  # the agent ends its step and stops there
    send(page, "Now the second message.")
    expect(bot(page, "second turn works")).to_be_visible(timeout=60_000)
    long_job_calls = [c for c in agent.model.calls if "long job" in last_task(c)]
    assert len(long_job_calls) == 1, "no model call after Stop"
    assert "Start a long job." in all_text(agent.model.calls[-1]), "the session continues"


def test_clear_resets_memory(app, new_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({
        "mango": ["<code>\nfruit = 'mango'\nfinal_answer('Got it.')\n</code>"],
        "fruit": ["<code>\nfinal_answer('Your fruit is ' + fruit)\n</code>",
                  "<code>\nfinal_answer('I do not know any fruit')\n</code>"],
    })  # fmt: skip
    page = new_page(app.url)
    send(page, "Remember mango.")
    wait_turn_done(page)
    agent = app.agents[-1]
    page.once("dialog", lambda dialog: dialog.accept())  # Clear asks first
    page.locator(".clear-button").click()
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0)
    send(page, "Which fruit did I say?")
    expect(bot(page, "I do not know any fruit")).to_be_visible()
    assert app.agents[-1] is agent, "same conversation, reset in place"
    assert "mango" not in all_text(agent.model.calls[-1]), "memory was reset"


def test_image_produced_by_code_appears(app, new_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"square": [
        "<code>\nfrom PIL import Image\nimg = Image.new('RGB', (48, 48), (200, 30, 30))\nimg\n</code>",
        "<code>\nfinal_answer(img)\n</code>",
    ]})  # fmt: skip
    page = new_page(app.url)
    send(page, "Draw a red square.")
    wait_turn_done(page)
    answer = page.locator(f'{CHAT} [data-testid="bot"] img').last
    expect(answer).to_be_visible()
    width = answer.evaluate("img => img.complete ? img.naturalWidth : 0")
    assert width == 48
    step_title(page, "Step 1").click()
    expect(page.locator(f'{CHAT} [data-testid="bot"] img')).to_have_count(2)


def test_upload_reaches_the_agent(app, new_page, tmp_path: Path):
    document = tmp_path / "notes.txt"
    document.write_text("Meeting notes.\nThe secret word is PAPAYA.\n", encoding="utf-8")

    def read_it(messages: list[dict]):
        match = re.search(r"path: (\S+notes\S*\.txt)", last_task(messages))
        if match is None:
            return "<code>\nfinal_answer('no file path in the task')\n</code>"
        observations = [content_text(m.get("content")) for m in messages]
        if any("Execution logs" in text and "PAPAYA" in text for text in observations):
            return "<code>\nfinal_answer('The file says PAPAYA')\n</code>"
        return f"<code>\nprint(open({match.group(1)!r}).read())\n</code>"

    app.model_options = {"loop": True}
    app.script = lambda: [read_it]
    page = new_page(app.url)
    send(page, "What does the file say?", files=[str(document)])
    expect(bot(page, "Attached notes.txt")).to_be_visible()
    expect(bot(page, "The file says PAPAYA")).to_be_visible()
    wait_turn_done(page)
    expect(page.locator(".side-panel td", has_text="notes.txt")).to_be_visible()


def test_reload_finds_the_same_conversation(app, new_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({
        "42": ["<code>\nnumber = 42\nfinal_answer('Kept.')\n</code>"],
        "number": ["<code>\nfinal_answer(f'The number was {number}')\n</code>"],
    })  # fmt: skip
    page = new_page(app.url)
    send(page, "Keep 42 in mind.")
    wait_turn_done(page)
    page.reload()
    expect(
        page.locator(f'{CHAT} [data-testid="user"]', has_text="Keep 42 in mind.")
    ).to_be_visible()
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    send(page, "What number?")
    expect(bot(page, "The number was 42")).to_be_visible()
