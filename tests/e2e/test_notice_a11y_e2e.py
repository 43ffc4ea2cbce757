"""A notice (gradio's toast) is no control within a control, in Chromium (issue 31): while it
shows, axe-core finds nothing serious, and its Close button is still reached and pressed by
the keyboard, light and dark, wide and on a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.test_ui_pass import PHONE, WIDE, serious_violations

pytestmark = pytest.mark.e2e

NOTICE = '[data-testid="toast-body"]'


@pytest.mark.parametrize(("size", "dark"), [(WIDE, False), (PHONE, True)], ids=["wide", "phone"])
def test_a_notice_shows_without_a_nested_control_and_closes_by_keyboard(app, open_page, size, dark):
    page = open_page(app.url, viewport=size, dark=dark)
    switch = page.get_by_label("Ask me before running code or tools")
    switch.focus()
    page.keyboard.press("Space")  # a notice says what the switch now does
    notice = page.locator(NOTICE, has_text="the agent asks before it runs code or tools")
    expect(notice).to_be_visible()
    expect(notice.locator('[role="button"]')).to_have_count(0)
    expect(notice).to_have_css("opacity", "1")  # faded in: its colours are its own
    found = serious_violations(page)
    assert not found, "\n".join(found)
    close = notice.get_by_role("button", name="Close")
    close.focus()
    expect(close).to_be_focused()
    page.keyboard.press("Enter")
    expect(notice).to_have_count(0)
