"""Issue 12 in the browser: the chart example draws a real plot (in the step and as the
answer), uploaded CSV and XLSX files are read by agent code with pandas, and a DataFrame
answer is shown as a table. The code runs in the real sandbox."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from agents.models.messages import content_text
from agents.models.scripted_demo import demo_model
from tests.e2e.pages import (
    CHAT,
    MESSAGE_BOX,
    bot,
    natural_width,
    send,
    step_title,
    wait_turn_done,
)
from tests.e2e.test_ui_pass import shot

pytestmark = pytest.mark.e2e


def text_lines(element) -> int:
    """How many lines an element's text takes on the page."""
    return element.evaluate(
        "e => { const r = document.createRange(); r.selectNodeContents(e);"
        " return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; }"
    )


def wait_for_answer(page) -> None:
    """The first plot of a worker imports pandas and matplotlib: allow for a slow machine."""
    expect(page.locator(f"{CHAT} sub", has_text=" step")).to_have_count(1, timeout=60_000)
    wait_turn_done(page)


def test_chart_example_shows_the_plot_in_the_step_and_the_answer(app, new_page):
    app.model_options = {"loop": True}
    app.script = lambda: list(demo_model(delay=0).replies)
    page = new_page(app.url)
    example = "Plot the monthly totals and tell me the best month."
    expect(page.locator(".examples, #examples, body").get_by_text(example)).to_be_visible()
    # Once the page is ready (the box enabled), one click sends the example's prompt with
    # its bundled file, as a person would; a click while the page loads does nothing.
    expect(page.locator(MESSAGE_BOX)).to_be_enabled()
    page.locator("#examples").get_by_text(example).click()
    wait_for_answer(page)
    answer = page.locator(f'{CHAT} [data-testid="bot"] img').last
    expect(answer).to_be_visible()
    assert natural_width(answer) == 800  # the figure's 8 inches at 100 dpi
    answer.scroll_into_view_if_needed()
    shot(page, "plot-turn")
    headers = page.locator(".side-panel th")
    expect(headers).to_have_text(["file", "size", "pages"])
    for header in headers.all():  # the narrow side panel keeps every header on one line
        assert text_lines(header) == 1, f"the side panel's {header.inner_text()!r} wraps"
    step_title(page, "Step 1").click()
    step_image = page.locator(f"{CHAT} .thought-group img").first
    expect(step_image).to_be_visible()
    assert natural_width(step_image) == 800
    expect(
        page.locator(f"{CHAT} .thought-group", has_text="Best month: 2024-10")
    ).not_to_have_count(0)
    totals = page.locator(f"{CHAT} .thought-group table").first  # the step's last value
    expect(totals).to_contain_text("2024-10")
    expect(totals.locator("tbody tr")).to_have_count(12)


def test_uploaded_csv_and_xlsx_are_read_by_code_with_pandas(app, new_page, tmp_path: Path):
    openpyxl = pytest.importorskip("openpyxl")
    csv_file = tmp_path / "orders.csv"
    csv_file.write_text("order,amount\nA,120.5\nB,79.5\nC,300\n")
    book = openpyxl.Workbook()
    for row in (["sku", "units"], ["x", 7], ["y", 35]):
        book.active.append(row)
    xlsx_file = tmp_path / "stock.xlsx"
    book.save(xlsx_file)

    def analyse(messages: list[dict]) -> str:
        task = "\n".join(content_text(m.get("content")) for m in messages)
        csv_path = re.search(r"pd\.read_csv\('([^']+)'\)", task)
        xlsx_path = re.search(r"pd\.read_excel\('([^']+)'\)", task)
        if not (csv_path and xlsx_path):
            return "<code>\nfinal_answer('the note gave no paths')\n</code>"
        return (
            "<code>\nimport pandas as pd\n"
            f"orders = pd.read_csv({csv_path.group(1)!r})\n"
            f"stock = pd.read_excel({xlsx_path.group(1)!r})\n"
            "final_answer(f'Revenue {orders.amount.sum():.1f}, units {stock.units.sum()}')\n"
            "</code>"
        )

    app.model_options = {"loop": True}
    app.script = lambda: [analyse]
    page = new_page(app.url)
    send(page, "Sum the orders and the stock.", files=[str(csv_file), str(xlsx_file)])
    wait_for_answer(page)
    expect(bot(page, "Revenue 500.0, units 42")).to_be_visible()


def test_a_dataframe_answer_renders_as_a_table(app, new_page):
    app.model_options = {"loop": True}
    app.script = lambda: [
        "<code>\nimport pandas as pd\n"
        "final_answer(pd.DataFrame({'city': ['Oslo', 'Lima'], 'visitors': [12, 30]}))\n</code>"
    ]
    page = new_page(app.url)
    send(page, "Make a table of visitors.")
    wait_for_answer(page)
    table = page.locator(f'{CHAT} [data-testid="bot"] table').last
    expect(table).to_be_visible()
    expect(table.locator("th")).to_have_text(["city", "visitors"])
    expect(table.locator("tbody tr")).to_have_count(2)
    expect(table.locator("tbody tr").last).to_contain_text("Lima")
