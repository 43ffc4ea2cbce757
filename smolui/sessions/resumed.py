"""`Resumed`: how a conversation that is not live comes back from the conversation store.

The registry's `resume` callback returns one (`smolui.conversations.keeper` builds it) when a
visitor opens an id that was evicted, belongs to a process that restarted, or lives on another
replica; the registry then builds the conversation anew under the same id. Conversations that
never reached the store (evicted before their first turn) come back from
`smolui.sessions.released` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agents.loop.agent import MultiStepAgent
from smolui.sessions.session import Session


@dataclass
class Resumed:
    """How to bring back a conversation that is not live (from the conversation store).

    Args:
        owner: Whose conversation it is.
        folder: Its upload folder's name.
        restore: Puts the stored memory into the freshly built agent.
        files: Its uploaded files, for the side panel.
        note: One line for the model on the next turn, or None.
        model: The model spec it was using (None: the app's default); its agent is rebuilt
            with that model.
        based_on: Called with the live conversation once it is made: its saves are based on
            the stored version it was brought back from.
    """

    owner: str
    folder: str
    restore: Callable[[MultiStepAgent], None]
    files: list[Any] = field(default_factory=list)
    note: str | None = None
    model: str | None = None
    based_on: Callable[[Session], None] = lambda session: None


__all__ = ["Resumed"]
