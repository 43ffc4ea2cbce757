"""On a phone the sidebar covers the chat: picking a past conversation there (or starting a
new one) folds it, so the person sees the chat they asked for, as a person does it in
Chromium at 400x800."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, send, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.e2e.test_ui_pass import PHONE

pytestmark = pytest.mark.e2e


def open_the_sidebar(page) -> None:
    page.get_by_role("button", name="Toggle Sidebar").click()
    expect(page.locator(".sidebar.open")).to_have_count(1)


def test_picking_a_conversation_on_a_phone_folds_the_sidebar(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"": ["<code>\nfinal_answer('noted')\n</code>"]})
    page = open_page(app.url, viewport=PHONE)
    send(page, "first question about basil")
    wait_turn_done(page)
    open_the_sidebar(page)
    page.get_by_role("button", name="+ New chat").click()
    expect(page.locator(".sidebar.open")).to_have_count(0)  # the new chat is in view
    send(page, "second question about thyme")
    wait_turn_done(page)
    open_the_sidebar(page)
    page.locator(".conversation-list label", has_text="first question about basil").click()
    expect(page.locator(".sidebar.open")).to_have_count(0)
    # The chat is in view and holds the conversation picked. Where it is scrolled to is the
    # chat's own business (a reopened chat shows its latest messages): not this test's.
    expect(page.locator(CHAT)).to_be_in_viewport()
    shown = page.locator(f'{CHAT} [data-testid="user"]')
    expect(shown.filter(has_text="first question about basil")).to_have_count(1)
    expect(shown.filter(has_text="second question about thyme")).to_have_count(0)


def test_a_conversation_picked_from_the_keyboard_keeps_the_sidebar_and_its_focus(app, open_page):
    # Space on a conversation loads it; folding the sidebar then would leave the focus on a
    # hidden control, so the person folds it with the toggle when done.
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"": ["<code>\nfinal_answer('noted')\n</code>"]})
    page = open_page(app.url, viewport=PHONE)
    send(page, "one about sage")
    wait_turn_done(page)
    open_the_sidebar(page)
    page.get_by_role("button", name="+ New chat").press("Enter")
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0)
    send(page, "two about mint")
    wait_turn_done(page)
    sage = page.get_by_role("radio", name="one about sage")
    sage.focus()
    page.keyboard.press("Space")
    expect(page.locator(f'{CHAT} [data-testid="user"]', has_text="one about sage")).to_have_count(1)
    expect(page.locator(".sidebar.open")).to_have_count(1)
    expect(sage).to_be_focused()
