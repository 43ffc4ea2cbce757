"""The report example in demo mode, in Chromium (issue 31): a newcomer clicks the card with
the bundled report, which sends it with the report; the scripted demo opens that report and
says it cannot summarize it, instead of plotting squares."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from agents.models.scripted_demo import demo_model
from tests.e2e.pages import CHAT, bot, step_title, wait_turn_done

pytestmark = pytest.mark.e2e


def test_the_report_example_in_demo_mode_opens_the_report(app, open_page):
    app.model_options = {"loop": True}
    app.script = lambda: list(demo_model(delay=0).replies)
    page = open_page(app.url)
    page.locator("#examples").get_by_text("Summarize the attached report").click()  # sent
    user = page.locator(f'{CHAT} [data-testid="user"]')
    expect(user.filter(has_text="Summarize the attached report")).to_have_count(1)
    expect(user.filter(has_text="greenhouse_report.pdf")).to_have_count(1)  # the file went too
    answer = bot(page, "cannot summarize greenhouse_report.pdf")
    expect(answer).to_be_visible(timeout=180_000)
    expect(answer).not_to_contain_text("squares")
    wait_turn_done(page)
    step = step_title(page, "Step 1")
    step.click()
    # The step shows the report's own opening lines, read by the tool.
    expect(page.locator(f"{CHAT} .thought-group").first).to_contain_text("greenhouse_report.pdf")
    expect(page.locator(f"{CHAT} .thought-group").first).to_contain_text("words read")
