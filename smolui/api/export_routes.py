"""Exports streamed by the app's own route, from the stored conversation.

The page's "↓ Markdown" / "↓ JSON" asks the server for a ticket (`ExportTickets.issue`, in a
gradio event that knows the visitor's owner key); the page then opens
`/smolui/export/<ticket>.<md|json>`, and the route reads the owner's stored chat and streams
it. Nothing the page sends is exported, and nothing is written to a temporary folder.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from smolui.api.file_routes import attachment
from smolui.render.export import export_name, export_pieces

EXPORT_PREFIX = "/smolui/export"
TICKET_S = 300.0  # a ticket is used at once; five minutes allow for a slow page
MAX_TICKETS = 10_000  # beyond it the oldest go: a flood of clicks cannot grow memory
MEDIA_TYPES = {"md": "text/markdown; charset=utf-8", "json": "application/json"}


class ExportTickets:
    """Short-lived, unguessable tickets naming one owner's conversation (in this process).

    Args:
        clock: Monotonic clock (injectable for tests).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self._tickets: dict[str, tuple[str, str, float]] = {}
        self._lock = threading.Lock()

    def issue(self, owner: str, conversation_id: str) -> str:
        """A new ticket for the owner's conversation.

        Args:
            owner: The owner (checked again by the store when the ticket is used).
            conversation_id: The conversation shown.
        """
        ticket = secrets.token_urlsafe(24)
        now = self.clock()
        with self._lock:
            self._tickets = {t: v for t, v in self._tickets.items() if v[2] > now}
            while len(self._tickets) >= MAX_TICKETS:
                self._tickets.pop(next(iter(self._tickets)))
            self._tickets[ticket] = (owner, conversation_id, now + TICKET_S)
        return ticket

    def redeem(self, ticket: str) -> tuple[str, str] | None:
        """The owner and conversation a live ticket names, or None.

        Args:
            ticket: From the URL.
        """
        with self._lock:
            found = self._tickets.get(ticket)
        if found is None or found[2] <= self.clock():
            return None
        return found[0], found[1]

    def url(self, owner: str, conversation_id: str, fmt: str) -> str:
        """Where the page downloads the export from.

        Args:
            owner: The owner.
            conversation_id: The conversation.
            fmt: "md" or "json".
        """
        return f"{EXPORT_PREFIX}/{self.issue(owner, conversation_id)}.{_format(fmt)}"


def export_router(
    tickets: ExportTickets,
    stored_chat: Callable[[str, str], list[dict[str, Any]] | None],
    model_of: Callable[[str], str],
) -> Any:
    """The export route (a FastAPI router).

    Args:
        tickets: The app's export tickets.
        stored_chat: `(owner, conversation_id)` -> the stored chat to export (the branch
            shown), or None when the owner has no such conversation.
        model_of: `conversation_id` -> the model that conversation runs, noted in the export
            as the page's header names it (its own pick, else the app's default).
    """
    from fastapi import APIRouter
    from fastapi.responses import PlainTextResponse, StreamingResponse

    router = APIRouter()

    @router.get(EXPORT_PREFIX + "/{ticket}.{fmt}", include_in_schema=False)
    def export(ticket: str, fmt: str) -> Any:
        found = tickets.redeem(ticket)
        chat = stored_chat(*found) if found is not None else None
        if found is None or chat is None or fmt not in MEDIA_TYPES:
            return PlainTextResponse("No such export (the link may have expired).", 404)
        model = model_of(found[1])
        pieces = (piece.encode("utf-8") for piece in export_pieces(chat, fmt, model))
        return StreamingResponse(
            pieces, media_type=MEDIA_TYPES[fmt], headers=attachment(export_name(fmt))
        )

    return router


def _format(fmt: str) -> str:
    return "json" if fmt == "json" else "md"


__all__ = ["EXPORT_PREFIX", "ExportTickets", "export_router"]
