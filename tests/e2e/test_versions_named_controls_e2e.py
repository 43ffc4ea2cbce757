"""Every control a screen reader meets has a name, in Chromium (issue 31), on a page with
versions, a folded long message and the conversation's Manage section open: the rename
field is "Conversation title", not "Textbox"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, chat_icon, send, wait_turn_done
from tests.e2e.test_chat import by_task

pytestmark = pytest.mark.e2e

# Visible controls with no name of their own (a placeholder is not one: it goes once typed
# in, and screen readers may not say it).
UNNAMED = """() => [...document.querySelectorAll(
    'input, textarea, select, button, [role=button], [role=combobox], [role=textbox]')]
  .filter((e) => e.offsetParent !== null && e.type !== 'hidden')
  .filter((e) => !e.closest('[aria-hidden="true"]'))
  .filter((e) => {
    if ((e.getAttribute('aria-label') || '').trim()) return false;
    const ids = (e.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean);
    if (ids.some((id) => (document.getElementById(id)?.textContent || '').trim())) return false;
    if (e.labels && [...e.labels].some((label) => label.textContent.trim())) return false;
    if (e.tagName === 'BUTTON' && (e.textContent || '').trim()) return false;
    return !(e.getAttribute('title') || '').trim();
  }).map((e) => e.outerHTML.slice(0, 160))"""


def test_the_rename_field_and_every_other_control_have_names(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "line": [
                "<code>\nfinal_answer('Read it.')\n</code>",
                "<code>\nfinal_answer('Read it again.')\n</code>",
            ]
        }
    )
    page = open_page(app.url)
    send(page, "\n".join(f"line {n}" for n in range(40)))
    wait_turn_done(page)
    chat_icon(page, "Retry").click()
    expect(page.locator(f"{CHAT} .smolui-versions")).to_contain_text("2/2")
    wait_turn_done(page)
    expect(page.get_by_role("button", name="Show all (40 lines)")).to_be_visible()
    page.get_by_text("Manage conversation").click()
    title = page.get_by_role("textbox", name="Conversation title")
    expect(title).to_be_visible()
    title.fill("Forty lines")
    expect(title).to_have_accessible_name("Conversation title")
    assert page.evaluate(UNNAMED) == []
