"""The "< 1/2 >" version switcher from the keyboard, in Chromium (issue 31): the arrow at an
end says it cannot act (aria-disabled) and keeps the focus; after a switch the focus stays
on the control used, whether Enter or an arrow key switched."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.keyboard import is_focused, tab_to, to_the_box
from tests.e2e.pages import CHAT, bot, chat_icon, send, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

FIRST, SECOND = "Plant tomatoes in May.", "Tomatoes go out after the last frost."
SWITCHER = f"{CHAT} .smolui-versions"


def shows(page, version: str, answer: str) -> None:
    expect(page.locator(SWITCHER)).to_contain_text(version)
    expect(bot(page, answer)).to_be_visible()


def stays_on(page, control, why: str) -> None:
    wait_for(lambda: is_focused(page, control), why)


def test_the_focus_stays_on_the_arrow_used_and_an_end_keeps_it(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "tomatoes": [
                f"<code>\nfinal_answer({FIRST!r})\n</code>",
                f"<code>\nfinal_answer({SECOND!r})\n</code>",
            ]
        }
    )
    page = open_page(app.url)
    send(page, "When do tomatoes go out?")
    wait_turn_done(page)
    chat_icon(page, "Retry").click()
    shows(page, "2/2", SECOND)
    wait_turn_done(page)

    previous = page.get_by_role("button", name="Previous version")
    following = page.get_by_role("button", name="Next version")
    expect(following).to_have_attribute("aria-disabled", "true")
    to_the_box(page)
    tab_to(page, previous, "Shift+Tab")  # the switcher sits just above the box
    page.keyboard.press("ArrowLeft")
    shows(page, "1/2", FIRST)
    expect(previous).to_have_attribute("aria-disabled", "true")
    expect(following).to_have_attribute("aria-disabled", "false")
    stays_on(page, previous, "after a switch the focus stays on the arrow used")

    # At the first version neither the arrow key nor the arrow itself moves anything.
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")
    page.keyboard.press("Space")
    shows(page, "1/2", FIRST)
    assert is_focused(page, previous), "the focus left the arrow at the end"

    page.keyboard.press("ArrowRight")  # an arrow key switches from either arrow
    shows(page, "2/2", SECOND)
    stays_on(page, previous, "the focus stays where the person put it")
    page.keyboard.press("Tab")
    assert is_focused(page, following), "Tab goes on to the next arrow, even at the end"
    page.keyboard.press("Enter")
    shows(page, "2/2", SECOND)
    assert is_focused(page, following)
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")
    shows(page, "1/2", FIRST)
    stays_on(page, previous, "Enter on an arrow keeps the focus on it")
