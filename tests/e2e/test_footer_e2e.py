"""gradio's footer as the app configures it: its links, and no separator before the first."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("width", [1400, 500], ids=["wide", "narrow"])
def test_the_footer_starts_with_its_first_link_not_a_separator(app, open_page, width):
    page = open_page(app.url, viewport={"width": width, "height": 900})
    footer = page.locator("footer")
    expect(footer.get_by_text("Built with Gradio")).to_be_visible()
    expect(footer.get_by_text("Settings")).to_be_visible()
    words = [line.strip() for line in footer.inner_text().splitlines() if line.strip()]
    assert words[0] == "Built with Gradio", words
    assert words == ["Built with Gradio", "·", "Settings"], words
