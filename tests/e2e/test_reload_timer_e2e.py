"""A running step's timer after a reload (issue 31): the page counts from when the step began on
the server, so a reloaded page shows the time going on, not starting again from 0 s."""

from __future__ import annotations

import re
import threading

import pytest
from playwright.sync_api import expect

from agents.models.scripted import ScriptedReply
from tests.e2e.pages import bot, send, step_title, wait_turn_done
from tests.waiting import GENEROUS_S

pytestmark = pytest.mark.e2e

# A shown time of 5 s or more ("5.3 s", "12 s", "1 min 4 s"): far from the "<1 ms" or
# "250 ms" a page that restarts its count shows first.
FIVE_SECONDS_OR_MORE = re.compile(r"^([5-9]\.[0-9] s|[1-9][0-9]+ s|[0-9]+ min.*)$")
ANY_TIME = re.compile(r"\S")


def shown_seconds(text: str) -> float:
    """The seconds a timer shows, read back from its text (smolui/render/durations.py)."""
    if text == "<1 ms":
        return 0.0
    if text.endswith(" ms"):
        return float(text[:-3]) / 1000
    found = re.fullmatch(r"(?:(\d+) min)? ?(?:([\d.]+) s)?", text)
    if not found or not any(found.groups()):
        raise ValueError(f"not a shown duration: {text!r}")
    minutes, seconds = found.groups()
    return int(minutes or 0) * 60 + float(seconds or 0)


def test_shown_seconds_reads_every_form():
    assert shown_seconds("<1 ms") == 0.0 and shown_seconds("250 ms") == 0.25
    assert shown_seconds("5.3 s") == 5.3 and shown_seconds("12 s") == 12.0
    assert shown_seconds("2 min 5 s") == 125.0 and shown_seconds("1 min") == 60.0
    with pytest.raises(ValueError):
        shown_seconds("soon")


def test_a_reload_keeps_the_running_steps_time(app, open_page):
    thinking, answer = threading.Event(), threading.Event()
    app.script = lambda: [
        ScriptedReply(
            "Thought: done.\n<code>\nfinal_answer('Counted.')\n</code>",
            reached=thinking,
            gate=answer,
        )
    ]
    try:
        page = open_page(app.url)
        send(page, "Count the boxes.")
        assert thinking.wait(GENEROUS_S), "the model call began"
        running = step_title(page, "Step 1")
        expect(running.locator(".loading-spinner")).to_be_visible()
        expect(running).to_have_attribute("data-elapsed", FIVE_SECONDS_OR_MORE)
        before = shown_seconds(running.get_attribute("data-elapsed") or "")
        page.reload()
        running = step_title(page, "Step 1")
        expect(running.locator(".loading-spinner")).to_be_visible()
        expect(running).to_have_attribute("data-elapsed", ANY_TIME)
        after = shown_seconds(running.get_attribute("data-elapsed") or "")
        assert after >= before, f"the timer went back from {before} s to {after} s on reload"
    finally:
        answer.set()  # the model answers, even when the test failed (no agent stays held)
    expect(bot(page, "Counted.")).to_be_visible()
    wait_turn_done(page)
    expect(running).not_to_have_attribute("data-elapsed", ANY_TIME)  # a finished step has none
