"""One duration on a finished step (issue 31's browser check): while a step runs its title shows
the live timer; once it ends, only the step's own duration shows beside it, from the first frame drawn
after it ended (not a tick of the timer later), live, after a reload, and in dark mode on a
phone."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, bot, send, step_title, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.e2e.test_ui_pass import PHONE, WIDE
from tests.waiting import GENEROUS_S

pytestmark = pytest.mark.e2e

SCRIPT = (
    "Thought: count the crates.\n<code>\nprint('crates', 7)\nwait_for_test('one duration')\n</code>"
)
ANSWER = "Seven crates."
# A time as the page writes one: "<1 ms", "715 ms", "1.7 s", "12 s", "2 min 5 s".
TIME = re.compile(r"(<1 ms|\d+ ms|\d+(?:\.\d)? s|\d+ min(?: \d+ s)?)")
SHOWN = """titles => titles.map(title => {
  const after = getComputedStyle(title, "::after").content;
  const timer = after && after !== "none" && after !== "normal" ? after : "";
  return title.textContent + " " + timer;
})"""


# Before every frame the browser paints: a finished step's title (no spinner) that still
# carries the live timer would be drawn with two durations.
WATCH_FRAMES = """(() => {
  window.twoDurations = [];
  const frame = () => {
    document.querySelectorAll("#chat .thought-group > .title[data-elapsed]").forEach((title) => {
      if (!title.querySelector(".loading-spinner")) window.twoDurations.push(title.textContent);
    });
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();"""


def times_shown(titles) -> list[tuple[str, list[str]]]:
    """Each step title's text with the times it shows: in its text and drawn after it."""
    return [(text, TIME.findall(text)) for text in titles.evaluate_all(SHOWN)]


@pytest.mark.parametrize(
    "size, dark", [(WIDE, False), (PHONE, True)], ids=["wide-light", "phone-dark"]
)
def test_a_finished_step_shows_one_duration(app, open_page, size, dark):
    app.model_options = {"loop": True}
    code_runs = app.gate("one duration")
    app.script = lambda: by_task(
        {
            "crates": [SCRIPT, f"<code>\nfinal_answer('{ANSWER}')\n</code>"],
        }
    )
    page = open_page(app.url, size, dark)
    page.evaluate(WATCH_FRAMES)
    send(page, "Count the crates please.")
    assert code_runs.reached.wait(GENEROUS_S), "the step's code runs, held by the test"
    running = step_title(page, "Step 1")
    expect(running.locator(".loading-spinner")).to_be_visible()
    expect(running).to_have_attribute("data-elapsed", TIME)  # the live timer shows
    code_runs.open()
    expect(bot(page, ANSWER)).to_be_visible()
    wait_turn_done(page)
    painted = page.evaluate("window.twoDurations")
    assert painted == [], f"a finished step was drawn with the live timer too: {painted}"
    for when in ("live", "after a reload"):
        titles = page.locator(f"{CHAT} .thought-group > .title")
        finished = step_title(page, "Step 1 · ran code")
        expect(finished, when).to_have_count(1)
        expect(finished.locator(".duration"), when).to_contain_text(TIME)
        expect(finished, when).not_to_have_attribute("data-elapsed", re.compile(".*"))
        shown = times_shown(titles)
        assert all(len(times) <= 1 for _, times in shown), f"{when}: {shown}"
        assert len(times_shown(finished)[0][1]) == 1, when
        if when == "live":
            page.reload()
