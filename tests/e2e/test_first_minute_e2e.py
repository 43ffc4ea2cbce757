"""The first minute of a new visitor, in Chromium (issue 31): an example clicked is sent at
once, with its file, and only once; the demo's plot shows in its step; Delete asks first; a
reload mid-turn says the turn runs; Stop says it stopped and keeps what ran; the examples
give the chat their room; a file over the size limit is refused in the app's words."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from agents.models.scripted import ScriptedReply
from agents.models.scripted_demo import demo_model
from tests.e2e.pages import (
    CHAT,
    MESSAGE_BOX,
    bot,
    natural_width,
    send,
    spinners,
    step_title,
    wait_turn_done,
)
from tests.e2e.test_chat import by_task
from tests.waiting import GENEROUS_S, wait_for

pytestmark = pytest.mark.e2e

WIDE = {"width": 1400, "height": 900}
FIBONACCI = "What is the 20th Fibonacci number? Compute it with code."
PLOT = "Plot the monthly totals and tell me the best month."
SEND = "#message button.submit-button"
PANEL = ".prose.side-panel"


def step_group(page, title: str):
    """The whole block (title and children) of the step whose title contains `title`."""
    return page.locator(f"{CHAT} .thought-group").filter(
        has=page.locator(":scope > .title", has_text=title)
    )


def user_message(page, text: str):
    """The person's messages in the chat whose text contains `text`."""
    return page.locator(f'{CHAT} [data-testid="user"]').filter(has_text=text)


def test_clicking_an_example_sends_it_and_the_answer_comes(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "Fibonacci": ["<code>\nfinal_answer('The 20th Fibonacci number is 6765.')\n</code>"],
            "monthly totals": ["<code>\nfinal_answer('Best month: October.')\n</code>"],
        }
    )
    page = open_page(app.url)
    box = page.locator(MESSAGE_BOX)
    page.locator("#examples").get_by_text(FIBONACCI).click()  # one click, no Enter
    expect(user_message(page, FIBONACCI)).to_have_count(1)
    expect(bot(page, "The 20th Fibonacci number is 6765.")).to_be_visible()
    wait_turn_done(page)
    expect(user_message(page, FIBONACCI)).to_have_count(1)  # sent once
    expect(box).to_have_value("")
    expect(box).to_be_focused()  # the card is gone: the next words go to the box
    # An example with its bundled file: the file goes with the message.
    page.locator(".new-chat-button").click()
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0)
    page.locator("#examples").get_by_text(PLOT).click()
    expect(user_message(page, PLOT)).to_have_count(1)
    expect(user_message(page, "monthly_sales.csv")).to_have_count(1)
    expect(bot(page, "Attached monthly_sales.csv")).to_be_visible()
    expect(bot(page, "Best month: October.")).to_be_visible()
    wait_turn_done(page)
    expect(page.locator("#message .thumbnail-wrapper")).to_have_count(0)


def test_an_example_is_not_sent_again_while_its_turn_runs(app, open_page):
    reached, gate = threading.Event(), threading.Event()
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "Fibonacci": [
                ScriptedReply(
                    "<code>\nfinal_answer('The 20th Fibonacci number is 6765.')\n</code>",
                    reached=reached,
                    gate=gate,
                )
            ]
        }
    )
    try:
        page = open_page(app.url)
        card = page.locator("#examples").get_by_text(FIBONACCI)
        card.click()
        assert reached.wait(GENEROUS_S), "the example's turn called the model"
        expect(page.locator("#examples")).to_be_hidden()  # nothing left to click
        expect(page.locator(MESSAGE_BOX)).to_be_disabled()
        # Even a click that reaches the hidden card (a script's, a double click landing
        # late) sends nothing while the box is disabled.
        card.dispatch_event("click")
        gate.set()
        expect(bot(page, "The 20th Fibonacci number is 6765.")).to_be_visible()
        wait_turn_done(page)
        expect(user_message(page, FIBONACCI)).to_have_count(1)
        # The page kept that click from the server, which would have said it is busy.
        expect(page.locator('[data-testid="toast-text"]', has_text="still busy")).to_have_count(0)
    finally:  # never leave the app's agent held for the next test
        gate.set()


def test_the_demo_steps_plot_shows_in_the_step_live_and_after_a_reload(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: list(demo_model(delay=0).replies)
    page = open_page(app.url)
    send(page, "Show me what you can do.")
    # The first plot of a worker imports matplotlib: allow for a slow machine.
    expect(page.locator(f"{CHAT} sub", has_text=" step")).to_have_count(1, timeout=180_000)
    wait_turn_done(page)
    for shown in ("live", "after a reload"):
        step = step_title(page, "Step 1 · ran code")
        expect(step).to_contain_text("1 image")
        step.click()
        image = step_group(page, "Step 1 · ran code").locator("img")
        expect(image).to_have_count(1)
        expect(image).to_be_visible()
        assert natural_width(image) == 600, f"the plot is not drawn {shown}"  # 6 in at 100 dpi
        if shown == "live":
            page.reload()
            expect(page.locator(f"{CHAT} sub", has_text=" step")).to_have_count(1)


def conversation_titles(page) -> list[str]:
    return page.locator(".conversation-list label").all_inner_texts()


def test_delete_and_delete_all_ask_first(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "apples": ["<code>\nfinal_answer('Apples noted.')\n</code>"],
            "pears": ["<code>\nfinal_answer('Pears noted.')\n</code>"],
        }
    )
    page = open_page(app.url)
    send(page, "Count my apples.")
    wait_turn_done(page)
    page.locator(".new-chat-button").click()
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0)
    send(page, "Count my pears.")
    wait_turn_done(page)
    expect(page.locator(".conversation-list label")).to_have_count(2)
    asked: list[str] = []

    def answer(accept: bool):
        def on_dialog(dialog) -> None:
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()

        return on_dialog

    page.locator(".conversation-manage").get_by_text("Manage conversation").click()
    delete = page.locator(".conversation-manage .delete-button")
    expect(delete).to_be_visible()
    page.once("dialog", answer(accept=False))
    delete.focus()
    page.keyboard.press("Enter")  # from the keyboard: the same question
    wait_for(lambda: asked, "Delete asks first")
    assert "Count my pears" in asked[-1] and "cannot be undone" in asked[-1]
    expect(bot(page, "Pears noted.")).to_be_visible()  # "Cancel" keeps it
    expect(page.locator(".conversation-list label")).to_have_count(2)
    page.once("dialog", answer(accept=True))
    delete.click()
    wait_for(lambda: len(asked) == 2, "Delete asks again")
    expect(page.locator(".conversation-list label")).to_have_count(1)
    expect(page.locator(".conversation-list label", has_text="Count my pears")).to_have_count(0)
    delete_all = page.locator(".delete-all-button")
    page.once("dialog", answer(accept=False))
    delete_all.click()
    wait_for(lambda: len(asked) == 3, "Delete all asks first")
    assert asked[-1] == "Delete your only conversation? This cannot be undone."
    expect(page.locator(".conversation-list label")).to_have_count(1)
    page.once("dialog", answer(accept=True))
    delete_all.click()
    wait_for(lambda: len(asked) == 4, "Delete all asks again")
    expect(page.locator(".conversation-list label")).to_have_count(0)


def test_a_reload_mid_turn_shows_the_turn_running(app, open_page):
    app.model_options = {"loop": True}
    held = app.gate("reload")
    app.script = lambda: by_task(
        {
            "slow sum": [
                "<code>\ntotal = 2 + 3\nwait_for_test('reload')\n</code>",
                "<code>\nfinal_answer(f'The sum is {total}.')\n</code>",
            ]
        }
    )
    page = open_page(app.url)
    send(page, "A slow sum, please.")
    assert held.reached.wait(GENEROUS_S), "the step's code runs"
    page.reload()
    expect(step_title(page, "Step 1").locator(".loading-spinner")).to_be_visible()
    expect(page.locator(PANEL)).to_contain_text("Now: answering")
    expect(page.locator(".stop-button")).to_be_enabled()
    held.open()
    expect(bot(page, "The sum is 5.")).to_be_visible()
    wait_turn_done(page)
    expect(page.locator(PANEL)).to_contain_text("Now: ready")


def test_stop_says_it_stopped_and_keeps_the_steps_that_ran(app, open_page):
    app.model_options = {"loop": True}
    code_runs = app.gate("stop")
    called, answers = threading.Event(), threading.Event()
    app.script = lambda: by_task(
        {
            "inventory": [
                "Thought: count the boxes first.\n<code>\nboxes = 12\nprint('boxes', boxes)\n"
                "</code>",
                ScriptedReply(
                    "Thought: now weigh every box.\n<code>\nprint('weighing')\n"
                    "wait_for_test('stop')\n</code>",
                    chunk_size=8,
                ),
            ],
            "ponder": [ScriptedReply("Thought: pondering", reached=called, gate=answers)],
        }
    )
    page = open_page(app.url)
    send(page, "Take the inventory.")
    assert code_runs.reached.wait(GENEROUS_S), "the second step's code runs"
    try:
        page.locator(".stop-button").click()
        expect(page.locator(f"{CHAT} sub", has_text="stopped · 2 steps")).to_be_visible()
    finally:
        code_runs.open()
    expect(bot(page, "Stopped.")).to_be_visible()
    expect(page.locator(CHAT)).not_to_contain_text("step boundary")
    expect(spinners(page)).to_have_count(0)
    expect(step_title(page, "Step 1 · ran code")).to_be_visible()
    stopped = step_title(page, "Step 2 · stopped")
    expect(stopped).to_be_visible()
    stopped.click()
    expect(step_group(page, "Step 2 · stopped")).to_contain_text("now weigh every box.")
    page.reload()  # what the page kept is what was saved
    expect(step_title(page, "Step 2 · stopped")).to_be_visible()
    # Stopped while the model is still thinking: the step the page showed stays, named so.
    send(page, "Now ponder.")
    try:
        assert called.wait(GENEROUS_S), "the model call began"
        page.locator(".stop-button").click()
        expect(page.locator(f"{CHAT} sub", has_text="stopped · 1 step ·")).to_be_visible()
    finally:
        answers.set()
    expect(step_title(page, "Step 1 · stopped")).to_contain_text(
        "stopped while the model was thinking"
    )


def test_the_examples_give_way_once_chatting(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"hello": ["<code>\nfinal_answer('Hello!')\n</code>"]})
    page = open_page(app.url, viewport=WIDE)
    expect(page.locator("#examples")).to_be_visible()
    send(page, "hello there")
    wait_turn_done(page)
    expect(page.locator("#examples")).to_be_hidden()
    chat = page.locator(CHAT).bounding_box()
    assert chat is not None and chat["height"] >= 0.6 * WIDE["height"], f"chat: {chat}"
    box = page.locator("#message").bounding_box()
    assert box is not None and box["y"] + box["height"] <= WIDE["height"], "box below the fold"
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height <= WIDE["height"], f"the page is {height} px tall"
    page.locator(".new-chat-button").click()  # an empty chat offers them again
    expect(page.locator("#examples")).to_be_visible()


def test_a_file_over_the_limit_is_refused_with_the_apps_limit(app, open_page, tmp_path: Path):
    limit_mb = app.settings.max_file_size_mb
    big = tmp_path / "big.txt"
    with big.open("wb") as file:
        file.truncate(int((limit_mb + 1) * 1024 * 1024))
    page = open_page(app.url)
    page.locator("#message input[type=file]").set_input_files([str(big)])
    toast = page.locator('[data-testid="toast-text"]', has_text="big.txt")
    expect(toast).to_contain_text(f"maximum allowed size of {limit_mb:g} MB")
    expect(page.locator("#message .thumbnail-wrapper")).to_have_count(0)
