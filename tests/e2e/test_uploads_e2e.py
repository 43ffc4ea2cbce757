"""Issue 8 in the browser: a PDF and an image attached in the chat reach the agent's model."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from agents.models.messages import content_text
from tests.e2e.pages import bot, send, wait_turn_done
from tests.samples import write_pdf

pytestmark = pytest.mark.e2e


def test_pdf_and_image_reach_the_next_model_call(app, new_page, tmp_path: Path):
    from PIL import Image

    pdf = write_pdf(tmp_path / "quarterly report.pdf", ["Revenue grew by 17 percent.", "Page two."])
    image = tmp_path / "chart.png"
    Image.new("RGB", (64, 40), (200, 30, 30)).save(image)
    seen: list[list[dict]] = []

    def answer(messages: list[dict]) -> str:
        seen.append(messages)
        return "Thought: done.\n<code>\nfinal_answer('Looked at both files.')\n</code>"

    app.model_options = {"loop": True}
    app.script = lambda: [answer]
    page = new_page(app.url)
    send(page, "Summarize the report and the chart.", files=[str(pdf), str(image)])
    expect(bot(page, "Looked at both files.")).to_be_visible()
    wait_turn_done(page)

    task = seen[0][-1]
    text = content_text(task["content"])
    assert "Summarize the report and the chart." in text
    assert "quarterly report.pdf" in text and "2 pages" in text
    assert "Revenue grew by 17 percent." in text  # the extracted first lines
    assert "chart.png" in text
    images = [b for b in task["content"] if b.get("type") == "image_url"]
    assert len(images) == 1 and images[0]["image_url"]["url"].startswith("data:image/")
