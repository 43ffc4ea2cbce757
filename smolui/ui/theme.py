"""The page's own styles and behaviour, given to gradio at launch (no work at import time).

`smolui/assets/smolui.css`: readable steps (AA contrast), wrapping logs, compact layout.
`smolui/assets/page.css`: the phone layout, the examples hidden once chatting (page-level
rules gradio would scope; in <head>).
`smolui/assets/smolui.js`: the sidebar folded under 900 px, Esc stops, live step timers,
Clear and Delete ask first.
`smolui/assets/speak.js` (in <head>, first): the status region and clipboard the other
scripts share; `a11y.js`, `copy.js`, `chips.js`: a skip link and focus in the message box,
names for unnamed controls; copy buttons that copy the answer (and the whole turn as
Markdown); the server's checks of attached files on their chips; `branches.js`: the
"< 2/3 >" version switchers; `fold.js`: long messages of the person's folded, with "Show
all"; `share.js`: the share controls' focus and announcements.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ASSETS = Path(__file__).parent.parent / "assets"
CSS_PATH = ASSETS / "smolui.css"
JS_PATH = ASSETS / "smolui.js"
PAGE_CSS_PATH = ASSETS / "page.css"
# Scripts of their own, each `() => {...}`, run once when the page's <head> is put in.
HEAD_SCRIPT_PATHS = (
    ASSETS / "speak.js",  # first: the others use what it defines
    ASSETS / "a11y.js",
    ASSETS / "copy.js",
    ASSETS / "chips.js",
    ASSETS / "branches.js",
    ASSETS / "fold.js",
    ASSETS / "share.js",
)


def launch_options() -> dict[str, Any]:
    """The `launch` / `mount_gradio_app` options that add smolui's styles and script."""
    page_css = PAGE_CSS_PATH.read_text(encoding="utf-8")
    scripts = "".join(
        f"<script>\n({path.read_text(encoding='utf-8').strip()})();\n</script>\n"
        for path in HEAD_SCRIPT_PATHS
    )
    return {
        "css_paths": [CSS_PATH],
        "js": JS_PATH.read_text(encoding="utf-8"),
        "head": f"<style>\n{page_css}</style>\n{scripts}",
    }


def apply_defaults(options: dict[str, Any]) -> dict[str, Any]:
    """Add smolui's styles and script to launch options the caller did not set.

    Args:
        options: `GradioUI.launch` keyword arguments (changed in place and returned).
    """
    for key, value in launch_options().items():
        options.setdefault(key, value)
    return options
