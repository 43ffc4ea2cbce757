"""gradio's status region (a polite live region a screen reader reads after each event) says
something a person understands, or nothing: never an untranslated key such as
"common.complete", which gradio said a few seconds after the page opened, once the header's
load event had ended (issue 31)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import CHAT, bot, send, wait_turn_done
from tests.e2e.test_chat import by_task
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

# What the status region holds, from the page's first moment: `written`, each text as gradio
# writes it (this observer is the page's first, so it runs before the page's own scripts);
# `said`, each text once the page's scripts have had their turn, as a screen reader reads it.
RECORD_STATUS = """
window.__status = {written: [], said: []};
const texts = () => [...document.querySelectorAll('.sr-only[role="status"]')]
  .map((region) => (region.textContent || '').trim()).filter(Boolean);
const keep = (list, text) => { if (list.at(-1) !== text) list.push(text); };
new MutationObserver(() => {
  texts().forEach((text) => keep(window.__status.written, text));
  queueMicrotask(() => texts().forEach((text) => keep(window.__status.said, text)));
}).observe(document, {subtree: true, childList: true, characterData: true});
"""
# A translation key gradio failed to look up: dotted lower-case words, e.g. "common.complete".
I18N_KEY = re.compile(r"^[a-z_]+(\.[a-z_]+)+$")


def status(page) -> dict[str, list[str]]:
    return page.evaluate("window.__status")


def test_the_status_region_never_says_an_untranslated_key(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: by_task({"weather": ["<code>\nfinal_answer('Sunny all day.')\n</code>"]})
    page = open_page(app.url)
    page.add_init_script(RECORD_STATUS)
    page.reload()  # recorded from the start
    # gradio says "Loading", then (spaced out by its own throttle) how the header's load ended.
    wait_for(
        lambda: len(status(page)["written"]) >= 2,
        "gradio's status region spoke twice (the header's load event began, then ended)",
    )
    send(page, "What is the weather?")
    expect(bot(page, "Sunny all day.")).to_be_visible()
    wait_turn_done(page)
    page.locator(".new-chat-button").click()  # an event that is not a turn
    expect(page.locator(f'{CHAT} [data-testid="user"]')).to_have_count(0)
    said = status(page)["said"]
    assert said, "the region said nothing at all (is it still gradio's status region?)"
    leaked = [text for text in said if I18N_KEY.match(text)]
    assert not leaked, f"the status region said untranslated keys: {leaked}"
    region = page.locator('.sr-only[role="status"]')
    expect(region).to_have_count(1)
    assert not I18N_KEY.match(region.inner_text().strip())
