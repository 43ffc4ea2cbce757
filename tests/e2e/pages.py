"""What a person does on the page, and what they see, as small helpers over Playwright."""

from __future__ import annotations

from typing import Any

MESSAGE_BOX = "#message textarea"
CHAT = "#chat"


def send(page: Any, text: str, files: list[str] | None = None) -> None:
    """Type a message (optionally attaching files) and press Enter."""
    from playwright.sync_api import expect

    box = page.locator(MESSAGE_BOX)
    # The first load of a page may be slow: as long as `open_page`'s cold load on a busy
    # machine (once 60 s was not enough while other suites ran beside this one).
    expect(box).to_be_enabled(timeout=120_000)
    if files:
        page.locator("#message input[type=file]").set_input_files(files)
        expect(page.locator("#message .thumbnail-wrapper")).to_have_count(len(files))
    box.fill(text)
    box.press("Enter")


def chat_icon(page: Any, label: str) -> Any:
    """The chat's one visible icon with this label ("Undo", "Retry"), once the page shows only
    one: gradio repeats them under each message of a turn and the page's script hides the
    others (under load, a moment after the turn ends)."""
    from playwright.sync_api import expect

    icon = page.locator(f'{CHAT} button[aria-label="{label}"]:visible')
    expect(icon).to_have_count(1)
    return icon


def step_title(page: Any, text: str) -> Any:
    """The title row of the step whose title contains `text`."""
    return page.locator(f"{CHAT} .thought-group > .title", has_text=text)


def spinners(page: Any) -> Any:
    """Spinners of steps still running."""
    return page.locator(f"{CHAT} .loading-spinner")


def bot(page: Any, text: str) -> Any:
    """Plain bot messages (answers and notes, not steps) whose text contains `text`."""
    return (
        page.locator(CHAT)
        .get_by_label("bot's message: ")
        .filter(has_text=text)
        .filter(has_not=page.locator(".thought-group"))
    )


def wait_turn_done(page: Any, turns: int = 1) -> None:
    """Wait until `turns` footers are shown and the message box is usable again."""
    from playwright.sync_api import expect

    expect(page.locator(f"{CHAT} sub", has_text=" step")).to_have_count(turns)
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()


# How Chromium refuses a reload pressed while the page reloads itself.
OWN_RELOAD = ("ERR_ABORTED", "Not attached to an active page")


def reload_after_restart(page: Any) -> None:
    """Reload a page whose server was killed and started again, as a person presses F5.

    gradio's page, once it lost its server, looks for it every 2 s and reloads itself when it
    is back; a reload pressed at that moment is aborted by the browser in favour of the
    page's own (`net::ERR_ABORTED`), or finds the page between its old document and its new
    one (`Not attached to an active page`). Either way the page loads anew from the new
    server.
    """
    from playwright.sync_api import Error

    try:
        page.reload()
    except Error as error:
        if not any(sign in str(error) for sign in OWN_RELOAD):
            raise
        page.wait_for_load_state("load")  # the page's own reload, under way


def natural_width(image) -> int:
    """The image's drawn width once it has loaded (0 if it fails to load): after a reload the
    element shows before its bytes arrive."""
    return image.evaluate(
        """img => img.complete ? img.naturalWidth : new Promise(done => {
             img.addEventListener("load", () => done(img.naturalWidth), {once: true});
             img.addEventListener("error", () => done(0), {once: true});
           })"""
    )
