"""The app's approval setting (`--approve` / `SMOLUI_APPROVE`) read into an agent's `approve=`.

The setting is "never" (default), "code", "tools", "all", or a comma-separated list of tool
names. It is the default of every conversation; a conversation's switch turns approval on or
off for it alone. Switched on where the app's setting is "never", a conversation holds
everything ("all").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

APPROVE_CHOICES = ("never", "code", "tools", "all")
SWITCHED_ON = "all"  # what a conversation holds when switched on and the app says "never"
_TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")


def approve_problem(setting: str) -> str | None:
    """What is wrong with an `--approve` value, or None when it is usable.

    Args:
        setting: The flag's or the environment variable's value.
    """
    text = setting.strip()
    if text in APPROVE_CHOICES:
        return None
    names = [name.strip() for name in text.split(",")]
    wrong = [name for name in names if not _TOOL_NAME.match(name)]
    if not text or wrong:
        return (
            "--approve takes never, code, tools, all, or a comma-separated list of tool names "
            f"(e.g. send_email,web_search); got {setting!r}"
        )
    return None


def default_on(setting: str) -> bool:
    """Whether a conversation without its own switch asks for approval.

    Args:
        setting: The app's `--approve` value.
    """
    return setting.strip() != "never"


def approve_value(setting: str, tool_names: Iterable[str] | None = None) -> Any:
    """The `approve=` an agent gets when its conversation has approval on.

    Named tools the agent lacks are left out (it can never call them, so nothing waits for
    them; `missing_tools` tells the operator): one setting serves agents with other tools.

    Args:
        setting: The app's `--approve` value.
        tool_names: The agent's tools; None keeps every name.
    """
    text = setting.strip()
    if text == "never":
        return SWITCHED_ON
    if text in APPROVE_CHOICES:
        return text
    names = [name.strip() for name in text.split(",")]
    return names if tool_names is None else [n for n in names if n in set(tool_names)]


def missing_tools(setting: str, tool_names: Iterable[str]) -> list[str]:
    """The tools `--approve` names that an agent does not have (none for the other values).

    Args:
        setting: The app's `--approve` value.
        tool_names: The agent's tools.
    """
    if setting.strip() in APPROVE_CHOICES:
        return []
    return sorted(set(approve_value(setting)) - set(tool_names))
