"""A tool whose every run is counted in a file: how a test sees that an action ran once,
across processes (an app killed and started again, two pages answering at once)."""

from __future__ import annotations

from pathlib import Path

from tools import tool


def count_call(folder: Path):
    """A `count_call` tool that appends a line to `folder/calls.txt` each time it runs.

    Args:
        folder: Where the count is kept.
    """

    @tool
    def count_call(note: str) -> str:
        """Records that it was called.

        Args:
            note: A word to record.
        """
        with open(folder / "calls.txt", "a", encoding="utf-8") as calls:
            calls.write(note + "\n")
        return f"recorded {note}"

    return count_call


def calls_made(folder: Path) -> list[str]:
    """The notes `count_call` recorded in `folder`, in order.

    Args:
        folder: The tool's folder.
    """
    path = folder / "calls.txt"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
