"""Reuse the previous call's converted messages: a conversation grows by a few messages a
step, so `Model.prepare_messages` converts only those, whatever the conversation's length.

Only `ChatMessage` lists are reused. Change a message by assigning its fields (that is
noticed), not by editing its content in place.
"""

from __future__ import annotations

from typing import Any

from agents.models.messages import ChatMessage, converted_changes, mark_converted


class ConvertedPrefix:
    """The messages of the last call and the wire entries they became."""

    def __init__(self) -> None:
        self._last: tuple[list[Any], list[dict[str, Any]], int] | None = None

    def reuse(self, messages: list[Any]) -> tuple[int, list[dict[str, Any]]]:
        """How many leading messages are those of the last call, unchanged, and their
        entries (the last one copied, since the next message may join it).

        Args:
            messages: This call's messages.
        """
        last = self._last  # one read: another thread may remember a new call meanwhile
        if last is None:
            return 0, []
        sources, entries, changes = last
        known = len(sources)
        if changes != converted_changes() or len(messages) < known or messages[:known] != sources:
            return 0, []
        out = list(entries)
        if out:
            out[-1] = {**out[-1], "content": list(out[-1]["content"])}
        return known, out

    def remember(self, messages: list[Any], reused: int, entries: list[dict[str, Any]]) -> None:
        """Keep this call's messages and entries for the next call.

        Args:
            messages: This call's messages.
            reused: How many of them came from the last call.
            entries: The entries they became (not changed afterwards).
        """
        for message in messages[reused:]:
            if not isinstance(message, ChatMessage):  # a dict may change unnoticed
                self._last = None
                return
            mark_converted(message)
        self._last = (list(messages), list(entries), converted_changes())
