"""Each answer's "Copy turn as Markdown" (issue 31: copy gives the answer; a second action
copies the whole turn), used from the keyboard as a person does in Chromium: the turn's
steps, code, logs, figure and answer reach the clipboard as Markdown, nothing of the other
turn, no raw tags, and the page has no serious accessibility finding."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, send, step_title, wait_turn_done
from tests.e2e.test_a11y_copy_export_e2e import allow_clipboard, clipboard
from tests.e2e.test_chat import by_task
from tests.e2e.test_ui_pass import PHONE, WIDE, serious_violations

pytestmark = pytest.mark.e2e

FIRST = "The plotted total is 6."
SECOND = "The second answer is 10."
LABEL = "Copy turn as Markdown"


def script() -> list:
    return by_task(
        {
            "plot": [
                "Thought: I plot the numbers.\n<code>\nimport matplotlib.pyplot as plt\n"
                "plt.plot([1, 2, 3])\nplt.show()\nprint('plotted', sum([1, 2, 3]))\n</code>",
                f"<code>\nfinal_answer('{FIRST}')\n</code>",
            ],
            "again": [f"<code>\nfinal_answer('{SECOND}')\n</code>"],
        }
    )


def tab_to(page, label: str, presses: int = 8) -> None:
    """Tab forward until the control named `label` has the focus (at most `presses` times)."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement.getAttribute('aria-label')") == label:
            return
    raise AssertionError(f"{label!r} is not reached with the Tab key")


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["wide", "phone"])
def test_the_turn_is_copied_as_markdown_from_the_keyboard(app, open_page, dark, size):
    app.model_options = {"loop": True}
    app.script = script
    page = open_page(app.url, viewport=size, dark=dark)
    allow_clipboard(page, app.url)
    send(page, "Please plot 1, 2 and 3")
    wait_turn_done(page)
    expect(step_title(page, "1 image")).to_have_count(1)
    send(page, "And again")
    wait_turn_done(page, 2)
    first = page.locator(f"{CHAT} .bot-row").first
    buttons = first.locator(".message-buttons").filter(visible=True)
    expect(buttons).to_have_count(1)
    expect(buttons.get_by_role("button", name=LABEL)).to_be_visible()
    # From the turn's copy button, Tab reaches "Copy turn as Markdown"; Enter copies.
    buttons.locator("button[aria-label='Copy message']").focus()
    tab_to(page, LABEL)
    page.keyboard.press("Enter")
    expect(page.locator("#smolui-announce")).to_have_text("Turn copied as Markdown")
    text = clipboard(page)
    assert re.search(r"^### Step 1 · ", text, re.MULTILINE), text
    assert "I plot the numbers." in text
    assert "```python\nimport matplotlib.pyplot as plt\n" in text
    assert re.search(r"```text\n[^`]*plotted 6", text), "the step's logs, fenced"
    assert FIRST in text and text.index("Step 1") < text.index(FIRST)
    assert "answered" in text and "<sub>" not in text, "the footer's words, not its tags"
    assert SECOND not in text and "And again" not in text, "nothing of the other turn"
    found = serious_violations(page)
    assert not found, "\n".join(found)
    # The figure is linked by the URL the page loads it from (shown once its step opens).
    step_title(page, "1 image").click()
    picture = first.locator("img").first
    expect(picture).to_be_visible()
    shown = picture.get_attribute("src")
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert links and all(link.startswith("http") for link in links), links
    assert shown in links, (shown, links)
    assert "data:image" not in text
