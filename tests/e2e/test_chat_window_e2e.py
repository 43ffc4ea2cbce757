"""A long conversation in Chromium, with a small chat window: the page shows its last
messages, "Earlier messages" brings the rest, and an edit, a version switch and a retry made
while the window is scrolled back act on the message they were made on."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send
from tests.e2e.test_chat import by_task

pytestmark = pytest.mark.e2e

WORDS = ("alpha", "bravo", "charlie", "delta")
USER_ROWS = f"{CHAT} .message-row.user-row"
SWITCHER = f"{CHAT} .smolui-versions"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    """The real app whose page holds one turn at a time (a turn is at least 4 messages: the
    person's, a step, the answer and its footer), and whose "Earlier messages" brings back
    4 messages as a person counts them: two questions and their answers."""
    server = ScriptedApp(tmp_path_factory.mktemp("uploads"), chat_window=4).start()
    yield server
    server.stop()


def answers() -> list:
    """Each word has its answer; a second answer to "delta" (a retry) says so. One reply
    that loops (the app's model option `loop`)."""
    rules = {w: [f"<code>\nfinal_answer('{w.title()} answered.')\n</code>"] for w in WORDS}
    rules["delta"].append("<code>\nfinal_answer('Delta again.')\n</code>")
    rules["echo"] = ["<code>\nfinal_answer('Echo answered.')\n</code>"]
    return by_task(rules)


def earlier_button(page):
    return page.get_by_role("button", name=re.compile("Earlier messages"))


def show_earlier(page) -> None:
    """Press "Earlier messages" once and wait for more of the person's messages."""
    before = page.locator(USER_ROWS).count()
    earlier_button(page).click()
    page.wait_for_function(
        "([selector, before]) => document.querySelectorAll(selector).length > before",
        arg=[USER_ROWS, before],
    )


def test_a_long_chat_loads_its_last_messages_first_and_acts_on_the_right_one(app, open_page):
    app.model_options = {"loop": True}
    replies = answers()  # one set of counters: an agent let go by a switch is made again
    app.script = lambda: replies
    page = open_page(app.url)
    for word in WORDS:
        send(page, f"Tell me about {word}.")
        expect(bot(page, f"{word.title()} answered.")).to_be_visible()
        expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    # The page holds the last turn; the first ones wait on the server.
    expect(earlier_button(page)).to_be_visible()
    expect(bot(page, "Alpha answered.")).to_have_count(0)
    expect(page.locator(USER_ROWS)).to_have_count(1)
    page.reload()  # a reopened long conversation also opens on its last messages
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(bot(page, "Delta answered.")).to_be_visible()
    expect(bot(page, "Alpha answered.")).to_have_count(0)
    show_earlier(page)  # bravo and charlie, with their answers
    expect(bot(page, "Bravo answered.")).to_be_visible()
    expect(bot(page, "Alpha answered.")).to_have_count(0)
    show_earlier(page)  # alpha
    for word in WORDS:
        expect(bot(page, f"{word.title()} answered.")).to_be_visible()
    expect(earlier_button(page)).to_be_hidden()

    # Scrolled back part-way: the window opens on "bravo", the conversation's second turn.
    page.reload()
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    show_earlier(page)
    first = page.locator(USER_ROWS).first
    expect(first).to_contain_text("bravo")
    first.hover()
    first.locator('button[aria-label="Edit"]').click()
    page.locator(f"{CHAT} textarea").fill("Tell me about echo.")
    page.locator(f'{CHAT} button[aria-label="Submit"]:visible').click()
    expect(bot(page, "Echo answered.")).to_be_visible()
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(bot(page, "Delta answered.")).to_have_count(0)
    # The edit replaced "bravo" (not the message at that place in the page's count).
    show_earlier(page)
    expect(page.locator(USER_ROWS, has_text="alpha")).to_be_visible()
    expect(page.locator(USER_ROWS, has_text="bravo")).to_have_count(0)
    expect(page.locator(SWITCHER)).to_contain_text("2/2")

    # Back to the old version: the switcher is on the edited message, wherever it sits.
    page.get_by_role("button", name="Previous version").click()
    expect(bot(page, "Delta answered.")).to_be_visible()
    expect(bot(page, "Echo answered.")).to_have_count(0)
    expect(page.locator(USER_ROWS, has_text="bravo")).to_be_visible()
    expect(page.locator(SWITCHER)).to_contain_text("1/2")

    # Retry while scrolled back: the last answer is made again, the others stay.
    page.reload()
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    show_earlier(page)
    retry = page.locator(f'{CHAT} button[aria-label="Retry"]:visible')
    expect(retry).to_have_count(1)  # on the last answer only, once the rows are redrawn
    retry.click()
    expect(bot(page, "Delta again.")).to_be_visible()
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(bot(page, "Delta answered.")).to_have_count(0)
    show_earlier(page)  # the turn before it kept its answer
    expect(bot(page, "Charlie answered.")).to_be_visible()
