"""A turn waiting for the person's approval, as they meet it in Chromium: the side panel says
it waits for their approval and where, nothing on the page spins or counts as if the agent
worked, its words show without empty boxes, and a message sent in another conversation
meanwhile runs (the waiting turn holds no turn slot)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, spinners, step_title
from tests.e2e.test_approvals_e2e import PROPOSED, app, approval_on, pending_code

pytestmark = pytest.mark.e2e

__all__ = ["app"]  # the fixture, used by name

QUESTION = "What is six times seven?"
CODE = "result = 6 * 7\nfinal_answer(f'The answer is {result}.')"
PANEL = ".prose.side-panel"
CARD = f"{CHAT} .thought-group > .title"

# The characters of an element that Chromium draws as the missing-glyph box (no font on this
# machine has them): each is drawn in the element's font and compared with an unassigned
# code point, which always draws that box.
BOXES = """(element) => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 96;
  const pen = canvas.getContext("2d");
  const draw = (text) => {
    pen.clearRect(0, 0, 96, 96);
    pen.font = getComputedStyle(element).font;
    pen.fillText(text, 16, 64);
    return pen.getImageData(0, 0, 96, 96).data.join();
  };
  const box = draw("\\u0378");
  return [...new Set(element.textContent)].filter(
    (c) => c.codePointAt(0) > 127 && c.trim() && draw(c) === box);
}"""


def boxes(locator) -> list[str]:
    """Characters of each element `locator` finds that show as empty boxes."""
    return [c for element in locator.all() for c in element.evaluate(BOXES)]


def waiting(page) -> None:
    """Approval on, a question sent: its code waits for the person."""
    approval_on(page)
    send(page, QUESTION)
    pending_code(page, CODE)


def test_the_page_says_the_turn_waits_for_you_and_nothing_counts_as_work(app, open_page):
    app.script = lambda: [PROPOSED]
    page = open_page(app.url)
    waiting(page)
    panel = page.locator(PANEL)
    expect(panel).to_contain_text("waiting for your approval, not working")
    expect(panel).to_contain_text("shown in the chat")
    expect(panel).not_to_contain_text("answering")
    expect(step_title(page, "Step 1")).to_be_visible()
    # No spinner, hence no running timer (the page times spinning steps): nothing works.
    expect(spinners(page)).to_have_count(0)
    expect(page.locator(f"{CARD}[data-elapsed]")).to_have_count(0)
    expect(step_title(page, "Step 1")).to_contain_text("waits for your approval")
    card = page.locator(CARD, has_text="Waiting for your approval")
    heading = page.locator("#approval-heading")
    assert not boxes(card) and not boxes(heading) and not boxes(panel), "drawn as empty boxes"

    page.get_by_role("button", name="Run", exact=True).click()
    expect(bot(page, "The answer is 42.")).to_be_visible()
    expect(panel).not_to_contain_text("waiting for your approval")
    expect(panel).to_contain_text("Now: ready")
    step_title(page, "Step 1").click()  # the finished step folds; the answer is inside
    answered = page.locator(CHAT).get_by_text("Approved: the code.")
    expect(answered).to_be_visible()
    assert not boxes(answered), "drawn as empty boxes"


def test_another_conversation_runs_while_one_waits_for_approval(app, open_page):
    app.script = lambda: [PROPOSED]
    first = open_page(app.url)
    waiting(first)
    # A second tab of the same browser (the same person) opens the waiting conversation.
    page = first.context.new_page()
    page.goto(app.url)
    pending_code(page, CODE)
    page.get_by_role("button", name="+ New chat").click()
    expect(page.locator(CHAT).get_by_text(QUESTION)).to_have_count(0)
    send(page, "And eight times nine?")
    # The waiting turn holds no slot: this one runs (approval is off in this conversation).
    expect(bot(page, "The answer is 42.")).to_be_visible()
    expect(bot(page, "Limit reached")).to_have_count(0)
    # The turn's end redraws the conversation list: a click meanwhile would be lost.
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(page.get_by_role("radio", name=QUESTION)).not_to_be_checked()

    # Back in the waiting conversation, its action answered there.
    page.locator(".conversation-list label", has_text=QUESTION).click()
    pending_code(page, CODE)
    page.get_by_role("button", name="Run", exact=True).click()
    expect(bot(page, "The answer is 42.")).to_be_visible()
