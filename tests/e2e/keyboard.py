"""What a keyboard-only person does on a page: move focus with Tab (or Shift+Tab) until it
reaches a control, and type into the message box that has the focus."""

from __future__ import annotations

from typing import Any

from tests.e2e.pages import MESSAGE_BOX

# More stops than any page of the app has between two visits of the same control, so a
# control never reached is reported, not looped over forever.
MOST_PRESSES = 90

_FOCUSED = """() => { const e = document.activeElement;
  return e ? `${e.tagName} ${e.getAttribute('aria-label') || (e.textContent || '').trim()
    .slice(0, 40)}` : 'nothing'; }"""


def tab_to(page: Any, target: Any, key: str = "Tab") -> None:
    """Press `key` until `target` (a locator of one element) has the focus.

    Args:
        page: The page.
        target: The control to reach.
        key: "Tab" (forwards) or "Shift+Tab" (backwards).

    Raises:
        AssertionError: The control was never focused (it lists where the focus went).
    """
    passed = []
    for _ in range(MOST_PRESSES):
        page.keyboard.press(key)
        if target.evaluate("node => node === document.activeElement"):
            return
        passed.append(page.evaluate(_FOCUSED))
    raise AssertionError(f"{key} never reached the control; focus went to: {passed}")


def is_focused(page: Any, target: Any) -> bool:
    """Whether `target` has the focus now."""
    return bool(target.evaluate("node => node === document.activeElement"))


def type_message(page: Any, text: str) -> None:
    """Type a message into the focused message box and press Enter (no click).

    Args:
        page: The page, its message box focused.
        text: The message.
    """
    from playwright.sync_api import expect

    box = page.locator(MESSAGE_BOX)
    expect(box).to_be_enabled()
    expect(box).to_be_focused()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def to_the_box(page: Any) -> None:
    """Back to the message box from anywhere, as a keyboard user does: Tab to the skip link
    at the top and press Enter."""
    from playwright.sync_api import expect

    skip = page.locator(".smolui-skip")
    tab_to(page, skip)
    page.keyboard.press("Enter")
    expect(page.locator(MESSAGE_BOX)).to_be_focused()


def focus_ring(page: Any, target: Any) -> str:
    """The focused control's outline or box shadow, as drawn ("none": no ring shows)."""
    return target.evaluate(
        """node => { const s = getComputedStyle(node);
             const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
             if (outline) return `outline ${s.outlineWidth} ${s.outlineStyle}`;
             return s.boxShadow && s.boxShadow !== 'none' ? `shadow ${s.boxShadow}` : 'none'; }"""
    )
