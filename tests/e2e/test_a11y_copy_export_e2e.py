"""Keyboard and screen-reader use, copy and export, as a person does them in Chromium
(issue 31): the cursor waits in the message box, a skip link leads there, every control has
a name, finished steps are not busy, the disabled box looks disabled; the copy buttons copy
the answer and a clean conversation; one click downloads a Markdown export with its images
and without the server's paths."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from agents.models.scripted import ScriptedReply
from tests.e2e.pages import CHAT, MESSAGE_BOX, bot, send, step_title, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.e2e.test_ui_pass import PHONE, WIDE, serious_violations

pytestmark = pytest.mark.e2e

ANSWER = "The sum is 6."


def answers(rules: dict[str, list]) -> list:
    """`by_task`, where a reply may also be a function of the model's messages."""
    [chosen_by_task] = by_task(rules)

    def reply(messages: list[dict]):
        chosen = chosen_by_task(messages)
        return chosen(messages) if callable(chosen) else chosen

    return [reply]


def clipboard(page) -> str:
    return page.evaluate("navigator.clipboard.readText()")


def allow_clipboard(page, url: str) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url.rstrip("/"))


def asked(app, open_page, question: str):
    """A page (clipboard allowed) that asked `question` and shows the turn's answer, ended."""
    page = open_page(app.url)
    allow_clipboard(page, app.url)
    send(page, question)
    expect(bot(page, ANSWER)).to_be_visible()
    wait_turn_done(page)
    return page


def from_the_top(page) -> None:
    """Focus goes back to the page itself (where it started before this fix), so the next
    Tab starts from the top of the page."""
    page.evaluate(
        """() => { document.body.tabIndex = -1; document.body.focus();
                   document.body.removeAttribute('tabindex'); }"""
    )


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["wide", "phone"])
def test_the_keyboard_starts_in_the_message_box_and_every_control_has_a_name(
    app, open_page, dark, size
):
    page = open_page(app.url, viewport=size, dark=dark)
    box = page.locator(MESSAGE_BOX)
    expect(box).to_be_focused()  # typed text goes to the agent at once
    expect(box).to_have_accessible_name("Message to the agent")
    expect(page.locator("h1")).to_have_count(1)
    search = page.get_by_role("textbox", name="Search conversations")
    expect(search).to_have_count(1)
    # From the top of the page, one Tab reaches the skip link and Enter the message box.
    from_the_top(page)
    page.keyboard.press("Tab")
    skip = page.locator(".smolui-skip")
    expect(skip).to_be_focused()
    expect(skip).to_be_visible()
    page.keyboard.press("Enter")
    expect(box).to_be_focused()
    found = serious_violations(page)
    assert not found, "\n".join(found)


def make_image_answer(messages) -> str:
    """A step whose code draws a small picture and answers with it."""
    return (
        "<code>\nfrom PIL import Image\nimage = Image.new('RGB', (40, 30), (200, 30, 30))\n"
        "final_answer(image)\n</code>"
    )


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_a_running_turn_dims_the_box_and_finished_steps_are_not_busy(app, open_page, dark):
    app.model_options = {"loop": True}
    app.script = lambda: answers(
        {
            "sum": [
                ScriptedReply("<code>\nvalues = [1, 2, 3]\nwait_for_test('held')\n</code>"),
                f"<code>\nfinal_answer('{ANSWER}')\n</code>",
            ],
            "picture": [make_image_answer],
        }
    )
    held = app.gate("held")
    page = open_page(app.url, dark=dark)
    message = page.locator("#message")
    enabled_look = message.evaluate("node => getComputedStyle(node).opacity")
    send(page, "What is the sum of 1, 2 and 3?")
    expect(page.locator(MESSAGE_BOX)).to_be_disabled()
    expect(page.locator(f"{CHAT} .loading-spinner")).to_have_count(1)
    assert held.reached.wait(60), "the step never ran"
    disabled_look = message.evaluate("node => getComputedStyle(node).opacity")
    assert disabled_look != enabled_look, "the disabled box looks like the enabled one"
    expect(step_title(page, "Step 1")).to_have_attribute("aria-busy", "true")
    held.open()
    wait_turn_done(page)
    expect(page.locator(f'{CHAT} [aria-busy="true"]')).to_have_count(0)
    send(page, "Draw a picture")
    wait_turn_done(page, 2)
    picture = page.get_by_role("button", name="Image made by the agent")
    expect(picture).to_have_count(1)
    found = serious_violations(page)
    assert not found, "\n".join(found)


def test_copy_gives_the_answer_and_a_clean_conversation(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "sum": [
                "Thought: add them.\n<code>\ntotal = sum([1, 2, 3])\nprint(total)\n</code>",
                f"<code>\nfinal_answer('{ANSWER}')\n</code>",
            ]
        }
    )
    page = asked(app, open_page, "What is the sum of 1, 2 and 3?")
    copy = page.locator(f"{CHAT} .bot-row .message-buttons button[aria-label='Copy message']")
    visible = copy.filter(visible=True)
    expect(visible).to_have_count(1)  # one row of buttons per turn, under the answer
    visible.click()
    expect(page.locator("#smolui-announce")).to_have_text("Answer copied")
    assert clipboard(page) == ANSWER
    page.locator(f"{CHAT} button[aria-label='Copy conversation']").click()
    expect(page.locator("#smolui-announce")).to_have_text("Conversation copied")
    text = clipboard(page)
    assert text == f"You: What is the sum of 1, 2 and 3?\n\nAgent: {ANSWER}", text
    assert "<sub>" not in text and "assistant:" not in text


def read_attached_file(messages) -> str:
    """Code that reads the attached table by the path the app gave the agent, and prints it."""
    found = re.search(r"(/[^\s'\"`\\]+/notes\.csv)", str(messages))
    path = found.group(1) if found else "/missing/notes.csv"
    return (
        f"<code>\npath = '{path}'\nprint('read', path)\nprint(open(path).read().strip())\n"
        "from PIL import Image\nfinal_answer(Image.new('RGB', (40, 30), (20, 90, 200)))\n</code>"
    )


def test_export_downloads_markdown_in_one_click_with_images_and_no_server_paths(
    app, open_page, tmp_path: Path
):
    app.model_options = {"loop": True}
    app.script = lambda: answers({"table": [read_attached_file]})
    table = tmp_path / "notes.csv"
    table.write_text("month,total\nJan,3\n", encoding="utf-8")
    page = open_page(app.url)
    send(page, "Read the table", files=[str(table)])
    wait_turn_done(page)
    expect(page.locator(f"{CHAT} img")).to_have_count(1)
    with page.expect_download() as started:
        page.locator(".export-md").click()
    download = started.value
    assert re.match(r"conversation-.*\.md$", download.suggested_filename)
    exported = Path(download.path()).read_text(encoding="utf-8")
    assert "month,total" in exported, "the step's logs are in the export"
    assert re.search(r"!\[[^\]]*\]\(data:image/png;base64,[A-Za-z0-9+/=]{40,}\)", exported)
    server_paths = [str(app.settings.upload_folder), str(app.settings.data_dir), "/tmp/"]
    leaked = [path for path in server_paths if path in exported]
    assert not leaked, f"the export names server paths: {leaked}"
    assert "path = 'notes.csv'" in exported, "the code keeps the file's name"


def test_an_answer_after_a_step_that_drew_a_figure_has_its_copy_button(app, open_page):
    # gradio shows its copy button only when every message of the turn is text: a step with
    # a figure took it away, and the Download beside the answer saved that step's figure.
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "figure": [
                "<code>\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()\n</code>",
                f"<code>\nfinal_answer('{ANSWER}')\n</code>",
            ]
        }
    )
    page = asked(app, open_page, "Draw a figure, then add 1, 2 and 3")
    expect(step_title(page, "1 image")).to_have_count(1)  # the step drew its figure
    buttons = page.locator(f"{CHAT} .bot-row .message-buttons").filter(visible=True)
    expect(buttons).to_have_count(1)
    copy = buttons.locator("button[aria-label='Copy message']")
    expect(copy).to_be_visible()
    expect(buttons.locator("[data-testid='download-link']")).to_be_hidden()
    copy.click()
    expect(page.locator("#smolui-announce")).to_have_text("Answer copied")
    assert clipboard(page) == ANSWER


def test_a_turn_that_wrote_files_copies_its_answer_not_the_file_list(app, open_page):
    # The list of files the code wrote follows the turn's footer: the turn's buttons went
    # under it, and its copy button copied the list ("Download all (.zip)") as the answer.
    app.model_options = {"loop": True}
    app.script = lambda: by_task(
        {
            "write": [
                "<code>\nopen('notes.txt', 'w').write('written by the code')\n"
                f"final_answer('{ANSWER}')\n</code>"
            ]
        }
    )
    page = open_page(app.url)
    allow_clipboard(page, app.url)
    send(page, "write the sum to a file")
    expect(page.locator(f"{CHAT} a", has_text="notes.txt")).to_be_visible()
    wait_turn_done(page)
    buttons = page.locator(f"{CHAT} .bot-row .message-buttons").filter(visible=True)
    expect(buttons).to_have_count(1)
    buttons.locator("button[aria-label='Copy message']").click()
    expect(page.locator("#smolui-announce")).to_have_text("Answer copied")
    assert clipboard(page) == ANSWER
    page.locator(f"{CHAT} button[aria-label='Copy conversation']").click()
    expect(page.locator("#smolui-announce")).to_have_text("Conversation copied")
    text = clipboard(page)
    assert text == f"You: write the sum to a file\n\nAgent: {ANSWER}", text
