"""An action waiting for approval on a phone, as a person meets it in Chromium (issue 31, from a
browser check): at 400x800 the approval panel filled almost the whole screen (about 150 px of
chat left) and repeated the code the chat's card shows. Now the chat keeps the largest part
of the screen, the panel's read-only code is a few lines that scroll, Run and the message
box stay on the screen without scrolling the page, and Edit still gives the whole code to
edit, in more room."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, bot, send
from tests.e2e.test_approvals_e2e import EDITOR, app, approval_on
from tests.e2e.test_ui_pass import PHONE, serious_violations
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

__all__ = ["app"]  # the fixture, used by name

# Ten lines of code: more than the panel shows at once on a phone.
CODE = "\n".join(f"part_{n} = {n}" for n in range(1, 10)) + "\nfinal_answer(f'sum {part_9}')"
PROPOSED = f"<code>\n{CODE}\n</code>"

# What the page scrolls, and the heights that matter, as the person sees the screen.
SCREEN = """() => {
  const box = (selector) => document.querySelector(selector).getBoundingClientRect();
  const editor = document.querySelector("#approval-editor textarea");
  return {
    scrolls: document.documentElement.scrollHeight - window.innerHeight,
    scrolled: window.scrollY,
    chat: box("#chat").height, panel: box(".smolui-approval").height,
    run: box("#approval-run").bottom, message: box("#message").bottom,
    editor: editor.clientHeight, code: editor.scrollHeight,
  };
}"""


def test_on_a_phone_the_chat_keeps_the_screen_while_an_action_waits(app, open_page):
    app.script = lambda: [PROPOSED]
    page = open_page(app.url, viewport=PHONE, dark=True)
    approval_on(page)
    send(page, "Add the parts up.")
    editor = page.locator(EDITOR)
    expect(editor).to_have_value(CODE)
    expect(page.locator(CHAT).get_by_text("Waiting for your approval")).to_be_visible()
    expect(page.locator("#approval-run")).to_be_focused()

    seen = page.evaluate(SCREEN)
    height = PHONE["height"]
    assert seen["chat"] >= 0.4 * height, f"the chat is squeezed: {seen}"
    assert seen["chat"] > seen["panel"], f"the panel takes more than the chat: {seen}"
    assert seen["run"] <= height and seen["message"] <= height, f"off the screen: {seen}"
    assert seen["scrolled"] == 0, f"the page scrolled to show the panel: {seen}"
    assert seen["editor"] <= 0.12 * height, f"the read-only code is tall: {seen}"
    assert seen["code"] > seen["editor"], f"the code should scroll in its box: {seen}"
    found = serious_violations(page)
    assert not found, "\n".join(found)

    page.get_by_role("button", name="Edit before running").click()
    expect(editor).to_be_editable()
    taller = lambda: page.evaluate(SCREEN)["editor"] > seen["editor"]  # noqa: E731
    wait_for(taller, "Edit gives the code more room")
    editor.fill(CODE.replace("sum", "total"))
    page.get_by_role("button", name="Run edited").click()
    expect(bot(page, "total 9")).to_be_visible()
    expect(page.locator("#approval-run")).to_be_hidden()
