"""Branches, sharing and downloads from the keyboard alone, and axe-core on the pages that
show them (issue 31): Tab, Shift+Tab, Enter, Space and the arrow keys reach each control,
operate it and show its result; the owner's page with versions, downloads and the share
controls, and the shared page, have no serious or critical axe-core finding in light and
dark, at 1400x900 and 400x800. One app for the module; the matrix reopens one conversation."""

from __future__ import annotations

import io
import re
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from agents.models.scripted import ScriptedReply
from smolui.handlers.message_actions import RETRY_AFTER_STOP
from smolui.turns.runner import STOP_NOTE
from tests.e2e.harness import ScriptedApp
from tests.e2e.keyboard import focus_ring, is_focused, tab_to, to_the_box, type_message
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, wait_turn_done
from tests.e2e.test_a11y_copy_export_e2e import allow_clipboard, clipboard
from tests.e2e.test_chat import by_task
from tests.e2e.test_ui_pass import PHONE, WIDE, serious_violations, shot
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

FIRST, SECOND = "Plant tomatoes in May.", "Tomatoes go out after the last frost."
REPORT = "month,total\nJan,3\n"
RAIN = "Rain is likely after noon."
RULES = {
    "tomatoes": [
        f"<code>\nfinal_answer({FIRST!r})\n</code>",
        f"<code>\nfinal_answer({SECOND!r})\n</code>",
    ],
    "peppers": ["<code>\nfinal_answer('Plant peppers in April.')\n</code>"],
    "report": [
        f"<code>\nopen('report.csv', 'w').write({REPORT!r})\n"
        "open('notes.txt', 'w').write('written by the code')\n"
        "final_answer('I wrote the report.')\n</code>"
    ],
    "basil": [
        "Thought: look it up.\n<code>\nadvice = 'warm soil'\nprint(advice)\n</code>",
        "<code>\nfinal_answer('Basil likes warm soil.')\n</code>",
    ],
}
SWITCHER = f"{CHAT} .smolui-versions"
COLD_LOAD_MS = 180_000
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"  # as conftest.py's


@pytest.fixture(scope="module")
def tree_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScriptedApp]:
    """The real app with sharing open to link holders; every conversation answers by RULES."""
    server = ScriptedApp(tmp_path_factory.mktemp("uploads"), sharing="public")
    server.model_options = {"loop": True}
    server.script = lambda: by_task(RULES)
    yield server.start()
    server.stop()


def open_context(browser, size: dict[str, int] = WIDE, dark: bool = False, state=None):
    """A visitor's browser (its storage from `state`: the same visitor coming back)."""
    scheme = "dark" if dark else "light"
    context = browser.new_context(
        viewport=size, color_scheme=scheme, storage_state=state, bypass_csp=True
    )
    context.set_default_timeout(60_000)
    return context


@pytest.fixture
def visitor(browser, request: pytest.FixtureRequest):
    """Opens visitors' browsers (`open_context`) for one test; a failed test leaves a
    screenshot of each page in test-artifacts/, and every browser is closed after it."""
    contexts = []

    def open_(size: dict[str, int] = WIDE, dark: bool = False, state=None):
        contexts.append(open_context(browser, size, dark, state))
        return contexts[-1]

    yield open_
    failed = getattr(request.node, "report_call", None)
    for index, context in enumerate(contexts):
        if failed is not None and failed.failed:
            ARTIFACTS.mkdir(exist_ok=True)
            for number, page in enumerate(context.pages):
                name = f"{request.node.name}-{index}-{number}.png"
                try:
                    page.screenshot(path=str(ARTIFACTS / re.sub(r"[^\w.-]", "_", name)))
                except Exception:  # a crashed page must not hide the test's own failure
                    pass
        context.close()


def open_app(context, url: str, dark: bool = False):
    page = context.new_page()
    page.goto(url + ("?__theme=dark" if dark else ""))
    # A cold page on a loaded machine (the suites beside this one) takes its time to load.
    expect(page.locator(MESSAGE_BOX)).to_be_enabled(timeout=COLD_LOAD_MS)
    return page


def retry_from_the_keyboard(page) -> None:
    """Tab from the message box to the Retry control and press Enter."""
    to_the_box(page)
    tab_to(page, page.locator(".retry-button"))
    page.keyboard.press("Enter")


def open_the_sidebar(page) -> None:
    """On a phone the sidebar starts folded: Tab to its toggle and press Enter."""
    if page.locator(".sidebar.open").count():
        return
    tab_to(page, page.get_by_role("button", name="Toggle Sidebar"))
    page.keyboard.press("Enter")
    expect(page.locator(".sidebar.open")).to_have_count(1)


def test_versions_switch_from_the_keyboard_and_the_focus_stays_on_the_switcher(tree_app, visitor):
    page = open_app(visitor(), tree_app.url)
    type_message(page, "When do tomatoes go out?")
    expect(bot(page, FIRST)).to_be_visible()
    wait_turn_done(page)
    retry_from_the_keyboard(page)
    expect(bot(page, SECOND)).to_be_visible()
    wait_turn_done(page)
    expect(page.locator(SWITCHER)).to_contain_text("2/2")

    to_the_box(page)
    previous = page.get_by_role("button", name="Previous version")
    tab_to(page, previous, "Shift+Tab")  # the switcher sits just above the box
    assert focus_ring(page, previous) != "none", "the focused arrow shows no focus ring"
    page.keyboard.press("Enter")
    expect(bot(page, FIRST)).to_be_visible()
    expect(bot(page, SECOND)).to_have_count(0)
    expect(page.locator(SWITCHER)).to_contain_text("1/2")
    expect(page.get_by_role("group", name="Versions of this message: 1 of 2")).to_be_visible()
    expect(page.locator("#smolui-announce")).to_have_text("Version 1 of 2 shown")
    # The switcher is drawn again for the version shown; the focus stays on the arrow
    # used, now marked as leading nowhere (issue 31: tests/e2e/test_versions_focus_e2e.py).
    following = page.get_by_role("button", name="Next version")
    wait_for(lambda: is_focused(page, previous), "the focus stays on the arrow used")
    tab_to(page, following)
    page.keyboard.press("Space")
    expect(bot(page, SECOND)).to_be_visible()
    expect(page.locator(SWITCHER)).to_contain_text("2/2")
    # The arrow keys move between versions while the switcher has the focus.
    wait_for(lambda: is_focused(page, following), "the focus stays on the arrow used")
    page.keyboard.press("ArrowLeft")
    expect(bot(page, FIRST)).to_be_visible()
    expect(page.locator(SWITCHER)).to_contain_text("1/2")
    wait_for(lambda: is_focused(page, following), "the focus stays after an arrow key")
    page.keyboard.press("ArrowRight")
    expect(bot(page, SECOND)).to_be_visible()
    expect(page.locator(SWITCHER)).to_contain_text("2/2")


def test_an_edit_from_the_keyboard_starts_a_branch_and_the_old_one_comes_back(tree_app, visitor):
    page = open_app(visitor(), tree_app.url)
    type_message(page, "When do tomatoes go out?")
    expect(bot(page, FIRST)).to_be_visible()
    wait_turn_done(page)
    to_the_box(page)
    mine = page.locator(f"{CHAT} .message-row.user-row")
    tab_to(page, mine.get_by_role("button", name="Edit"), "Shift+Tab")
    page.keyboard.press("Enter")
    editor = page.locator(f"{CHAT} textarea")
    expect(editor).to_be_visible()
    if not is_focused(page, editor):
        tab_to(page, editor)
    page.keyboard.press("ControlOrMeta+A")
    page.keyboard.type("When do peppers go out?")
    tab_to(page, page.locator(f'{CHAT} button[aria-label="Submit"]:visible'))
    page.keyboard.press("Enter")
    expect(bot(page, "Plant peppers in April.")).to_be_visible()
    wait_turn_done(page)
    versions = mine.locator(".smolui-versions")
    expect(versions).to_contain_text("2/2")
    to_the_box(page)
    tab_to(page, mine.get_by_role("button", name="Previous version"), "Shift+Tab")
    page.keyboard.press("Enter")
    expect(bot(page, FIRST)).to_be_visible()
    expect(bot(page, "Plant peppers in April.")).to_have_count(0)
    expect(versions).to_contain_text("1/2")


def test_retry_right_after_stop_keeps_the_stopped_answer_as_a_version(tree_app, visitor):
    reached, gate = threading.Event(), threading.Event()  # the model call in flight at Stop
    held = ScriptedReply(
        "Thought: wait for the forecast.\n<code>\nprint('forecast')\n</code>",
        reached=reached,
        gate=gate,
    )
    rules = {"slowly": [held, f"<code>\nfinal_answer({RAIN!r})\n</code>"], **RULES}
    tree_app.script = lambda: by_task(rules)
    try:
        page = open_app(visitor(), tree_app.url)
        type_message(page, "Think slowly: will it rain?")
        assert reached.wait(60), "the model call never began"
        tab_to(page, page.locator(".stop-button"))
        page.keyboard.press("Enter")
        tab_to(page, page.locator(".retry-button"))  # at once, while the call still runs
        page.keyboard.press("Enter")
        expect(page.get_by_text(RETRY_AFTER_STOP)).to_be_visible()
        gate.set()
        expect(bot(page, RAIN)).to_be_visible()
        wait_turn_done(page)
        expect(page.locator(SWITCHER)).to_contain_text("2/2")
        tab_to(page, page.get_by_role("button", name="Previous version"), "Shift+Tab")
        page.keyboard.press("Enter")
        expect(page.locator(SWITCHER)).to_contain_text("1/2")
        expect(bot(page, STOP_NOTE)).to_be_visible()  # the stopped answer, kept
        expect(bot(page, RAIN)).to_have_count(0)
    finally:
        gate.set()
        tree_app.script = lambda: by_task(RULES)


def test_files_out_download_from_the_keyboard(tree_app, visitor):
    page = open_app(visitor(), tree_app.url)
    type_message(page, "Write a report")
    wait_turn_done(page)
    to_the_box(page)
    link = page.locator(f"{CHAT} a", has_text="report.csv")
    tab_to(page, link, "Shift+Tab")
    assert focus_ring(page, link) != "none", "the focused link shows no focus ring"
    with page.expect_download() as started:
        page.keyboard.press("Enter")
    assert Path(started.value.path()).read_text(encoding="utf-8") == REPORT
    archive = page.locator(f"{CHAT} a", has_text="Download all (.zip)")
    tab_to(page, archive)
    with page.expect_download() as started:
        page.keyboard.press("Enter")
    data = Path(started.value.path()).read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as zipped:
        assert zipped.read("report.csv").decode("utf-8") == REPORT


def test_share_copy_read_and_stop_sharing_from_the_keyboard(tree_app, visitor):
    page = open_app(visitor(PHONE), tree_app.url)
    allow_clipboard(page, tree_app.url)
    type_message(page, "How warm does basil like it?")
    wait_turn_done(page)
    open_the_sidebar(page)
    share = page.get_by_role("button", name="Share a read-only link")
    tab_to(page, share)
    assert focus_ring(page, share) != "none", "Share shows no focus ring"
    page.keyboard.press("Enter")
    link_box = page.locator(".share-link").get_by_role("textbox")
    expect(link_box).to_have_value(re.compile(r"/smolui/share/\S+"))
    link = link_box.input_value()
    copy = page.locator(".share-link").get_by_role("button", name=re.compile("copy", re.I))
    tab_to(page, copy)
    assert focus_ring(page, copy) != "none", "Copy shows no focus ring"
    page.keyboard.press("Enter")
    wait_for(lambda: clipboard(page) == link, "Copy puts the link on the clipboard")

    shared = open_shared(visitor(), link)
    code = shared.get_by_text("advice = 'warm soil'")
    step = shared.locator("summary", has_text="Step 1")
    tab_to(shared, step)
    assert focus_ring(shared, step) != "none", "a step shows no focus ring"
    shared.keyboard.press("Enter")  # the step opens: its parts show, folded
    tab_to(shared, shared.locator("summary", has_text=re.compile("^Code$")).first)
    expect(code).to_be_hidden()
    shared.keyboard.press("Enter")
    expect(code).to_be_visible()
    expect(shared.get_by_text("Basil likes warm soil.", exact=True)).to_be_visible()

    stop = page.get_by_role("button", name="Stop sharing")
    tab_to(page, stop)
    assert focus_ring(page, stop) != "none", "Stop sharing shows no focus ring"
    page.keyboard.press("Space")
    expect(stop).to_be_hidden()
    assert page.request.get(link).status == 404, "the link opens nothing once stopped"


def open_shared(context, url: str):
    """A shared link opened by someone else (a fresh browser, nothing signed in)."""
    page = context.new_page()
    page.goto(url)
    expect(page.locator("h1")).to_be_visible()
    return page


@pytest.fixture(scope="module")
def tree_conversation(tree_app, browser) -> Iterator[dict]:
    """One conversation with downloads and an answer in two versions, for the matrix: the
    visitor's stored browser state, to come back to it."""
    context = open_context(browser)
    try:
        page = open_app(context, tree_app.url)
        type_message(page, "Write a report")
        wait_turn_done(page)
        to_the_box(page)
        type_message(page, "When do tomatoes go out?")
        wait_turn_done(page, 2)
        retry_from_the_keyboard(page)
        expect(bot(page, SECOND)).to_be_visible()
        expect(page.locator(SWITCHER)).to_contain_text("2/2")
        yield {"state": context.storage_state()}
    finally:
        context.close()


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["wide", "phone"])
def test_versions_downloads_and_sharing_pass_axe_core(
    tree_app, tree_conversation, visitor, size, dark
):
    page = open_app(visitor(size, dark, tree_conversation["state"]), tree_app.url, dark)
    expect(page.locator(SWITCHER)).to_contain_text("2/2")
    expect(page.locator(f"{CHAT} a", has_text="Download all (.zip)")).to_be_attached()
    open_the_sidebar(page)
    tab_to(page, page.get_by_role("button", name="Share a read-only link"))
    page.keyboard.press("Enter")
    link_box = page.locator(".share-link").get_by_role("textbox")
    expect(link_box).to_have_value(re.compile(r"/smolui/share/\S+"))
    expect(page.get_by_role("button", name="Stop sharing")).to_be_visible()
    name = f"tree-{'wide' if size == WIDE else 'phone'}-{'dark' if dark else 'light'}"
    shot(page, name)
    found = serious_violations(page)
    assert not found, "the owner's page:\n" + "\n".join(found)

    shared = open_shared(visitor(size, dark), link_box.input_value())
    expect(shared.get_by_text(SECOND, exact=True)).to_be_visible()
    shot(shared, f"{name}-shared")
    found = serious_violations(shared)
    assert not found, "the shared page:\n" + "\n".join(found)
