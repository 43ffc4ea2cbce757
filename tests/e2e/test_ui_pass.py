"""The chat UI pass in Chromium: layout at 1400x900 and 400x800, steps that read like a
notebook, controls that follow the turn's state, and axe-core accessibility checks.

Screenshots go to tests/e2e/artifacts/ (git-ignored) for a person to look at.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from agents.models.scripted import ScriptedReply
from tests.e2e.pages import CHAT, bot, send, step_title, wait_turn_done
from tests.e2e.test_chat import by_task

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = Path(__file__).parent / "artifacts"
WIDE = {"width": 1400, "height": 900}
PHONE = {"width": 400, "height": 800}


def shot(page, name: str) -> None:
    """Save a screenshot once the chat has stopped moving (steps open with an animation)."""
    SHOTS.mkdir(exist_ok=True)
    page.wait_for_function(
        """() => { const chat = document.querySelector('#chat [role=log]') || document.body;
                   const size = chat.scrollHeight + ':' + chat.scrollTop;
                   const same = window.__smoluiSize === size; window.__smoluiSize = size;
                   return same; }""",
        polling=250,
    )
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical WCAG A/AA findings on the page, as readable lines."""
    if not AXE.exists():
        pytest.skip("axe-core missing: run `npm ci` (scripts/install.sh --tests does)")
    page.add_script_tag(path=str(AXE))
    results = page.evaluate(
        """async () => await axe.run(document, {
            runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']},
            resultTypes: ['violations']})"""
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} -> "
        + "; ".join(
            f"{node['target'][0]} [{node['failureSummary'][-120:]}]" for node in v["nodes"][:3]
        )
        for v in results["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def slow_then_answer() -> list:
    return by_task(
        {
            "sum": [
                # The step's code waits for the test: the page is seen while it runs.
                ScriptedReply(
                    "Thought: add them up.\n<code>\nvalues = [1, 2, 3]\ntotal = sum(values)\n"
                    "print('total', total)\nprint('count', len(values))\n"
                    "wait_for_test('sum')\n</code>",
                    chunk_size=16,
                ),
                "<code>\nfinal_answer(f'The sum is {sum(values)}.')\n</code>",
            ]
        }
    )


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_empty_page_fits_the_screen_and_is_accessible(app, open_page, dark):
    page = open_page(app.url, dark=dark)
    examples = page.get_by_text("Summarize the attached report", exact=False).first
    expect(examples).to_be_visible()
    box = examples.bounding_box()
    assert box is not None and box["y"] + box["height"] <= WIDE["height"], "examples below the fold"
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height <= WIDE["height"], f"the page is {height} px tall at 1400x900"
    expect(page.locator(".stop-button")).to_be_disabled()
    shot(page, f"empty-{'dark' if dark else 'light'}")
    found = serious_violations(page)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_turn_reads_like_a_notebook(app, open_page, dark):
    app.model_options = {"loop": True}
    app.script = slow_then_answer
    step_runs = app.gate("sum")
    page = open_page(app.url, dark=dark)
    send(page, "What is the sum of 1, 2 and 3?")
    running = step_title(page, "Step 1")
    expect(running.locator(".loading-spinner")).to_be_visible()
    expect(page.locator(".stop-button")).to_be_enabled()
    expect(running).to_have_attribute("data-elapsed", re.compile(r"^[1-9][0-9]*\.[0-9] s$"))
    if not dark:
        shot(page, "running-turn")
    step_runs.open()
    expect(bot(page, "The sum is 6.").last).to_be_visible()
    wait_turn_done(page)
    expect(page.locator(".stop-button")).to_be_disabled()
    done = step_title(page, "Step 1 · ran code")
    expect(done).to_contain_text("5 lines · printed 2 lines")  # what it did, folded
    expect(page.locator(f"{CHAT} sub", has_text="answered · 2 steps")).to_be_visible()
    done.click()
    logs = page.locator(f"{CHAT} code.language-text", has_text="total 6")
    expect(logs).to_be_visible()
    expect(logs).not_to_contain_text("Execution logs:")
    expect(page.locator(CHAT)).not_to_contain_text("Last output from code snippet")
    code = page.locator(f"{CHAT} code.language-python", has_text="print('count', len(values))")
    expect(code).to_be_visible()  # the step's code is one click away
    expect(logs).to_be_visible()
    bot(page, "The sum is 6.").last.scroll_into_view_if_needed()  # the logs, answer and footer
    shot(page, f"finished-turn-{'dark' if dark else 'light'}")
    found = serious_violations(page)
    assert not found, "\n".join(found)


def test_long_error_lines_wrap_and_the_title_is_not_repeated(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "break": [
                "<code>\nraise ValueError('x' * 30 + ' ' + 'a-very-long-token-' * 40)\n</code>",
                "<code>\nfinal_answer('recovered')\n</code>",
            ]
        }
    )
    page = open_page(app.url)
    send(page, "break it")
    wait_turn_done(page)
    step_title(page, "Step 1").click()
    error_title = page.locator(f"{CHAT} .thought-group > .title", has_text="raised an error")
    expect(error_title).to_have_count(1)
    error_title.click()
    error = page.locator(f"{CHAT} code.language-text", has_text="a-very-long-token")
    expect(error).to_be_visible()
    wraps = error.evaluate("e => e.closest('pre').scrollWidth <= e.closest('pre').clientWidth + 1")
    assert wraps, "a long error line scrolls sideways"


def test_controls_follow_the_state(app, open_page):
    app.model_options = {"loop": True}
    # The retried answer and the long job's model call are held open until the page was seen.
    retry_answers, long_job_answers = threading.Event(), threading.Event()
    long_job_started = threading.Event()
    hello = "<code>\nfinal_answer('Hi there.')\n</code>"
    app.script = lambda: by_task(
        {
            "hello": [hello, ScriptedReply(hello, gate=retry_answers)],
            "long job": [
                ScriptedReply("Thought: thinking", reached=long_job_started, gate=long_job_answers)
            ]
            * 5,
        }
    )
    page = open_page(app.url)
    expect(page.locator(".stop-button")).to_be_disabled()
    page.locator(".retry-button").click()
    expect(page.get_by_text("There is no message to retry yet.")).to_be_visible(timeout=60_000)
    send(page, "hello")
    wait_turn_done(page)
    panel = page.locator(".prose.side-panel")
    expect(panel).to_contain_text("Now: ready")
    page.locator(".retry-button").click()  # a retry shows the panel answering, as a send does
    expect(panel).to_contain_text("Now: answering")
    expect(page.locator(".stop-button")).to_be_enabled()
    retry_answers.set()
    expect(panel).to_contain_text("Now: ready")
    wait_turn_done(page)
    with page.expect_download() as download:  # one click: the file downloads at once
        page.locator(".export-md").click()
    assert re.match(r"^conversation-.*\.md$", download.value.suggested_filename)
    page.once("dialog", lambda dialog: dialog.dismiss())  # Clear asks; "Cancel" keeps the chat
    page.locator(".clear-button").click()
    expect(bot(page, "Hi there.")).to_be_visible()
    expect(page.locator(CHAT).get_by_text("Error", exact=True)).to_have_count(0)  # no overlay
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(1)
    send(page, "long job")
    expect(page.locator(".stop-button")).to_be_enabled(timeout=60_000)
    # Stop once the server runs the turn (a Stop in the moment between the echo and the
    # queued turn's start stops it as it arrives: tests/smolui/test_early_stop.py).
    assert long_job_started.wait(60), "the long job's model call never began"
    page.keyboard.press("Escape")  # Esc stops
    expect(page.locator(f"{CHAT} sub", has_text="stopped")).to_be_visible(timeout=60_000)
    expect(page.locator(".stop-button")).to_be_disabled()
    long_job_answers.set()  # the stopped step ends, so Clear need not wait for it
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(".clear-button").click()
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0)


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_phone_puts_the_chat_first_and_nothing_scrolls_sideways(app, open_page, dark):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "wide": [
                "<code>\nprint('a-long-line-without-spaces-' * 12)\nfinal_answer('done')\n</code>"
            ]
        }
    )
    page = open_page(app.url, viewport=PHONE, dark=dark)
    expect(page.locator(".sidebar.open")).to_have_count(0)
    toggle = page.locator(".sidebar .toggle-button").bounding_box()
    assert toggle is not None and toggle["x"] >= 2, f"the sidebar button is cut off: {toggle}"
    first_example = page.locator("#examples .gallery-item").first.bounding_box()
    assert first_example["y"] + first_example["height"] <= PHONE["height"], "examples hidden"
    shot(page, f"mobile-empty-{'dark' if dark else 'light'}")
    send(page, "wide output please")
    wait_turn_done(page)
    expect(page.locator("#examples")).to_be_hidden()  # a conversation gives the chat the room
    chat = page.locator(CHAT).bounding_box()
    assert chat["height"] >= 0.65 * PHONE["height"], f"the chat is {chat['height']} px tall"
    box = page.locator("#message").bounding_box()
    assert box["y"] + box["height"] <= PHONE["height"], "the message box is below the screen"
    step_title(page, "Step 1").click()
    code = page.locator(f"{CHAT} code.language-python").first
    expect(code).to_be_visible()
    overlap = code.evaluate(
        """code => { const wrap = code.closest('[class*=code_wrap]');
                     const button = wrap.querySelector('button').getBoundingClientRect();
                     const line = document.createRange(); line.selectNodeContents(code);
                     const first = line.getClientRects()[0];
                     return button.bottom > first.top && button.left < first.right; }"""
    )
    assert not overlap, "the code's copy button sits over its first line"
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways on a phone ({width} px wide)"
    shot(page, f"mobile-{'dark' if dark else 'light'}")
