"""Another conversation opened in the same tab while a turn runs (issue 31): the running turn
goes on on the server and is kept, the page shows the other conversation alone, a message sent
there runs or is refused at once naming the running one, and reopening the running
conversation shows it live, then finished."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, spinners, step_title, wait_turn_done
from tests.e2e.test_approvals_e2e import PROPOSED, approval_on, pending_code
from tests.e2e.test_chat import by_task
from tests.waiting import GENEROUS_S, wait_for

pytestmark = pytest.mark.e2e

INVENTORY = "Take the inventory."
WEATHER = "What is the weather?"
LISTED = ".conversation-list label"


def held_inventory(app: ScriptedApp, gate: str) -> None:
    """The inventory's one step waits at `gate`, then answers; the weather answers at once."""
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "inventory": [
                "Thought: count the boxes.\n<code>\nprint('counting boxes')\n"
                f"wait_for_test('{gate}')\nfinal_answer('Inventory: 12 boxes')\n</code>"
            ],
            "weather": ["Thought: look outside.\n<code>\nfinal_answer('Sunny all day')\n</code>"],
        }
    )


def shows_no_inventory(page) -> None:
    """Nothing of the inventory's turn is in the chat shown."""
    expect(page.locator(f'{CHAT} [data-testid="user"]', has_text="inventory")).to_have_count(0)
    expect(page.locator(CHAT).get_by_text("counting boxes")).to_have_count(0)
    expect(bot(page, "Inventory: 12 boxes")).to_have_count(0)


def turns_end(app: ScriptedApp) -> None:
    """Every turn of the app has ended on the server."""
    sessions = app.ui.registry.sessions
    wait_for(lambda: not any(s.busy for s in sessions()), "the turns end on the server")


def start_inventory(app: ScriptedApp, page, gate) -> None:
    send(page, INVENTORY)
    assert gate.reached.wait(GENEROUS_S), "the inventory's code runs"
    expect(step_title(page, "Step 1").locator(".loading-spinner")).to_be_visible()
    # Listed once its turn has begun: the list is still before a click aims at it.
    expect(page.locator(LISTED, has_text=INVENTORY)).to_have_count(1)


def test_a_new_chat_mid_turn_is_refused_naming_the_running_one(app, open_page):
    gate = app.gate("new-chat-refused")
    held_inventory(app, gate.name)
    page = open_page(app.url)
    start_inventory(app, page, gate)

    page.get_by_role("button", name="+ New chat").click()
    shows_no_inventory(page)
    send(page, WEATHER)
    # One turn per person by default: refused at once, naming where the slot is held.
    refusal = bot(page, "Limit reached")
    expect(refusal).to_contain_text(f"\u201c{INVENTORY}\u201d is still running")
    expect(refusal).to_contain_text("open it and stop it")
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(page.locator(".stop-button")).to_be_disabled()

    gate.open()  # the inventory ends on the server, seen by no page
    turns_end(app)
    expect(refusal).to_be_visible()
    expect(page.locator(f'{CHAT} [data-testid="user"]', has_text=WEATHER)).to_be_visible()
    shows_no_inventory(page)

    page.locator(LISTED, has_text=INVENTORY).click()
    expect(bot(page, "Inventory: 12 boxes")).to_be_visible()
    expect(bot(page, "Limit reached")).to_have_count(0)


def test_another_conversation_mid_turn_then_the_running_one_live(app, open_page):
    gate = app.gate("pick-mid-turn")
    held_inventory(app, gate.name)
    page = open_page(app.url)
    send(page, WEATHER)
    expect(bot(page, "Sunny all day")).to_be_visible()
    wait_turn_done(page)
    page.get_by_role("button", name="+ New chat").click()
    expect(bot(page, "Sunny all day")).to_have_count(0)
    start_inventory(app, page, gate)

    # An earlier conversation picked mid-turn: it alone, ready for a message.
    page.locator(LISTED, has_text=WEATHER).click()
    expect(bot(page, "Sunny all day")).to_be_visible()
    shows_no_inventory(page)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(page.locator(".stop-button")).to_be_disabled()

    # Back to the running one: its step still runs, and its end shows as it comes.
    page.locator(LISTED, has_text=INVENTORY).click()
    expect(step_title(page, "Step 1").locator(".loading-spinner")).to_be_visible()
    expect(page.locator(".stop-button")).to_be_enabled()
    expect(bot(page, "Sunny all day")).to_have_count(0)
    gate.open()
    expect(bot(page, "Inventory: 12 boxes")).to_be_visible()
    expect(spinners(page)).to_have_count(0)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()


def test_a_new_chat_while_an_action_waits_for_approval_answers_at_once(app, open_page):
    question = "What is six times seven?"
    code = "result = 6 * 7\nfinal_answer(f'The answer is {result}.')"
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "six times seven": [PROPOSED],
            "weather": ["<code>\nfinal_answer('Sunny all day')\n</code>"],
        }
    )
    page = open_page(app.url)
    approval_on(page)
    send(page, question)
    pending_code(page, code)

    page.get_by_role("button", name="+ New chat").click()
    expect(page.locator(CHAT).get_by_text("Waiting for your approval")).to_have_count(0)
    send(page, WEATHER)
    # A turn waiting for its person holds no turn slot: the message runs at once.
    expect(bot(page, "Sunny all day")).to_be_visible()
    expect(bot(page, "Limit reached")).to_have_count(0)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    expect(page.locator(CHAT).get_by_text("Waiting for your approval")).to_have_count(0)

    page.locator(LISTED, has_text=question).click()
    pending_code(page, code)
    page.get_by_role("button", name="Run", exact=True).click()
    expect(bot(page, "The answer is 42.")).to_be_visible()
    expect(bot(page, "Sunny all day")).to_have_count(0)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()


@pytest.fixture(scope="module")
def roomy_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    """The app where one person may run two turns at once."""
    server = ScriptedApp(tmp_path_factory.mktemp("roomy"), user_concurrency=2).start()
    yield server
    server.open_gates()
    server.stop()


def test_a_new_chat_mid_turn_runs_when_the_limit_allows(roomy_app, open_page):
    app = roomy_app
    gate = app.gate("new-chat-runs")
    held_inventory(app, gate.name)
    page = open_page(app.url)
    start_inventory(app, page, gate)

    page.get_by_role("button", name="+ New chat").click()
    send(page, WEATHER)
    expect(bot(page, "Sunny all day")).to_be_visible()
    wait_turn_done(page)
    shows_no_inventory(page)

    gate.open()
    turns_end(app)
    expect(bot(page, "Sunny all day")).to_be_visible()
    shows_no_inventory(page)
    page.locator(LISTED, has_text=INVENTORY).click()
    expect(bot(page, "Inventory: 12 boxes")).to_be_visible()
    expect(bot(page, "Sunny all day")).to_have_count(0)
