"""Approve before it runs, for a tool call, in Chromium: with the app set to ask about one tool
(`--approve` naming the harness's host tool `wait_for_test`, and a tool the agent lacks, which
is left out), a code step that calls it waits with the tool's name and its arguments as JSON;
Skip with a reason refuses the call, and the agent reads the reason."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.harness import ScriptedApp
from tests.e2e.pages import bot, send

pytestmark = pytest.mark.e2e

PANEL, HEADING, EDITOR = "#approval-run", "#approval-heading", "#approval-editor textarea"
CALLS_THE_TOOL = "<code>\nwait_for_test(name='kilometres')\nfinal_answer('The tool ran.')\n</code>"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    server = ScriptedApp(
        tmp_path_factory.mktemp("uploads"), executor="local", approve="wait_for_test,send_email"
    ).start()
    yield server
    server.stop()


def test_a_tool_call_is_denied_with_a_reason_the_agent_reads(app, open_page):
    app.script = lambda: [CALLS_THE_TOOL, "<code>\nfinal_answer('No conversion, then.')\n</code>"]
    page = open_page(app.url)
    send(page, "Convert 10 km, please.")
    panel = page.locator(PANEL)
    expect(panel).to_be_visible()
    expect(page.locator(HEADING)).to_contain_text("call to wait_for_test")
    expect(page.locator(EDITOR)).to_have_value(re.compile(r'"name": "kilometres"'))
    expect(page.get_by_role("button", name="Always allow this tool")).to_be_visible()
    page.get_by_label("Reason (for Skip or Stop").fill("Keep it in kilometres, please.")
    page.get_by_role("button", name="Skip", exact=True).click()
    expect(bot(page, "No conversion, then.")).to_be_visible()
    expect(panel).to_be_hidden()
    expect(bot(page, "The tool ran.")).to_have_count(0)
    assert "Keep it in kilometres, please." in str(app.agents[-1].model.calls[-1])
