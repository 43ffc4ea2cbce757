"""Past conversations from the keyboard (issue 31): the list is one group, entered with one
Tab and left with the next; the arrow keys (and Home, End) move within it without opening
anything; Enter or Space opens the focused conversation; axe-core finds nothing serious."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.keyboard import is_focused, tab_to
from tests.e2e.pages import CHAT, bot, send, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.e2e.test_ui_pass import serious_violations

pytestmark = pytest.mark.e2e

FRUITS = ("figs", "pears", "plums")  # the list shows the newest first: plums, pears, figs


def radio(page, fruit: str):
    return page.locator(".conversation-list label", has_text=fruit).locator("input")


def user_says(page, fruit: str):
    return page.locator(f'{CHAT} [data-testid="user"]', has_text=f"Tell me about {fruit}.")


def test_past_conversations_are_one_tab_stop_walked_with_arrows(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"about": ["<code>\nfinal_answer('Noted.')\n</code>"]})
    page = open_page(app.url)
    for fruit in FRUITS:
        send(page, f"Tell me about {fruit}.")
        wait_turn_done(page)
        page.locator(".new-chat-button").click()
        expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0)
    expect(page.locator(".conversation-list label")).to_have_count(3)

    # One Tab enters the group (at its first conversation: none is open), the next leaves it.
    manage = page.locator(".conversation-manage summary, .conversation-manage button").first
    tab_to(page, manage)
    page.keyboard.press("Tab")
    assert is_focused(page, radio(page, "plums")), "Tab enters the list at its first item"
    page.keyboard.press("Tab")
    assert not page.evaluate("document.activeElement.closest('.conversation-list') !== null")
    page.keyboard.press("Shift+Tab")
    assert is_focused(page, radio(page, "plums")), "Shift+Tab comes back to the same item"

    # The arrows walk the list and open nothing on the way; it wraps round.
    page.keyboard.press("ArrowDown")
    assert is_focused(page, radio(page, "pears"))
    page.keyboard.press("ArrowDown")
    assert is_focused(page, radio(page, "figs"))
    page.keyboard.press("ArrowDown")
    assert is_focused(page, radio(page, "plums"))
    page.keyboard.press("End")
    assert is_focused(page, radio(page, "figs"))
    page.keyboard.press("ArrowUp")
    assert is_focused(page, radio(page, "pears"))
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0)

    page.keyboard.press("Enter")  # opens the focused conversation
    expect(user_says(page, "pears")).to_be_visible()
    expect(bot(page, "Noted.")).to_have_count(1)
    expect(radio(page, "pears")).to_be_checked()
    # Leaving and coming back lands on the open conversation, the group's one stop.
    page.locator(".new-chat-button").focus()
    tab_to(page, radio(page, "pears"))
    for other in ("plums", "figs"):
        assert radio(page, other).get_attribute("tabindex") == "-1"
    page.keyboard.press("Home")
    assert is_focused(page, radio(page, "plums"))
    expect(user_says(page, "pears")).to_be_visible()  # still the open one
    page.keyboard.press(" ")  # Space opens too
    expect(user_says(page, "plums")).to_be_visible()
    expect(radio(page, "plums")).to_be_checked()
    expect(radio(page, "pears")).not_to_be_checked()

    found = serious_violations(page)
    assert not found, "\n".join(found)
