"""A refused attachment's reason on a phone, as a person attaches the files in Chromium (issue 31,
from a browser check): at 400x800 the red chip's "Will be refused: …" wraps inside the
screen (it ran past the right edge of a row that scrolls sideways with no scrollbar), the
chip's tooltip and accessible description hold the reason too, and the reason keeps clear of the
chip's bottom border, on a phone and on a wide screen, light and dark."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.test_chips_attach_e2e import CHIPS, REFUSED, attach
from tests.e2e.test_ui_pass import PHONE, WIDE, serious_violations

pytestmark = pytest.mark.e2e

PROGRAM = "the content is a Windows program, not a PDF; renamed files are refused"
EMPTY = "the file is empty (0 bytes)"

# Where a chip's parts are drawn: the chip, its reason, the row of chips and the viewport.
GEOMETRY = """(chip) => {
  const box = (element) => element.getBoundingClientRect();
  const row = chip.closest(".thumbnails");
  const reason = chip.querySelector(".smolui-refusal");
  return {
    chip: box(chip).toJSON(), reason: box(reason).toJSON(), row: box(row).toJSON(),
    rowScrolls: row.scrollWidth > row.clientWidth,
    reasonCut: reason.scrollWidth > reason.clientWidth,
    viewport: document.documentElement.clientWidth,
  };
}"""


@pytest.fixture
def refused_files(tmp_path):
    """A Windows program renamed to .pdf and an empty text file: both refused on attach."""
    renamed = tmp_path / "quarterly_report.pdf"
    renamed.write_bytes(b"MZ\x90\x00\x03\x00\x00\x00\x04\x00" * 30)
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    return renamed, empty


def refused_chips(page, *paths):
    """Attach the files with the paperclip and wait for both red chips with their reasons."""
    attach(page, *paths)
    chips = page.locator(CHIPS)
    expect(chips).to_have_count(len(paths))
    for index, reason in enumerate((PROGRAM, EMPTY)):
        expect(chips.nth(index)).to_have_class(REFUSED)
        expect(chips.nth(index).locator(".smolui-refusal")).to_have_text(
            f"Will be refused: {reason}"
        )
    return chips


def assert_readable(chip, reason: str) -> None:
    """The whole reason is drawn inside the chip, the chip inside the row and the screen, and
    the reason clear of the chip's bottom border."""
    where = chip.evaluate(GEOMETRY)
    shape, text, row = where["chip"], where["reason"], where["row"]
    assert not where["rowScrolls"], f"the chips' row scrolls sideways: {where}"
    assert not where["reasonCut"], f"the reason is cut short: {reason!r} {where}"
    assert shape["right"] <= min(row["right"], where["viewport"]) + 0.5, where
    assert text["right"] <= shape["right"] + 0.5, f"the reason runs out of its chip: {where}"
    assert shape["bottom"] - text["bottom"] >= 3, f"the reason touches the border: {where}"


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_a_refused_chips_reason_wraps_inside_a_phone_screen(app, open_page, refused_files, dark):
    page = open_page(app.url, viewport=PHONE, dark=dark)
    chips = refused_chips(page, *refused_files)
    for index, reason in enumerate((PROGRAM, EMPTY)):
        assert_readable(chips.nth(index), reason)
        whole = f"Will be refused: {reason}"
        assert whole in (chips.nth(index).get_attribute("title") or ""), "the tooltip"
    # A screen reader names the chip by its caption (not gradio's "File thumbnail") and
    # reads its description: the file and why it will be refused.
    expect(chips.nth(0)).to_have_accessible_name("quarterly_report.pdf · PDF · 300 bytes")
    expect(chips.nth(0)).to_have_accessible_description(
        f"quarterly_report.pdf · PDF · 300 bytes. Will be refused: {PROGRAM}"
    )
    found = serious_violations(page)
    assert not found, "\n".join(found)


def test_a_refused_chips_reason_keeps_clear_of_its_border_on_a_wide_screen(
    app, open_page, refused_files
):
    page = open_page(app.url, viewport=WIDE)
    chips = refused_chips(page, *refused_files)
    for index, reason in enumerate((PROGRAM, EMPTY)):
        assert_readable(chips.nth(index), reason)
