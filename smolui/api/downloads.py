"""Files out of the app through its own routes: the files each turn's code wrote, exports of
the stored conversation, and (with `SMOLUI_SHARING`) read-only share links. Built once with
the app from its keeper; the store opens on first use.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from smolui.api.export_routes import ExportTickets, export_router
from smolui.api.file_routes import FILES_PREFIX, file_router
from smolui.api.viewer import gradio_viewer
from smolui.conversations.keeper import ConversationKeeper
from smolui.sessions import ConversationUnavailableError

logger = logging.getLogger(__name__)

MB = 1024 * 1024


class Downloads:
    """The app's download, export and share routes and what they read.

    Args:
        keeper: The app's conversation keeper.
        quota_mb: Most megabytes one owner may keep (uploads and written files; 0: no quota).
        model_of: `conversation_id` -> the model that conversation runs, noted in its
            exports (as the page's header names it).
        sign_in: The app's `SignIn`: with sign-in on, a signed-in owner's files are served
            to that owner only (`smolui.api.file_routes`); None or "none": the link's key.
    """

    def __init__(
        self,
        keeper: ConversationKeeper,
        quota_mb: float,
        model_of: Callable[[str], str],
        sign_in: Any = None,
    ):
        self.keeper, self.model_of = keeper, model_of
        on = sign_in is not None and sign_in.mode != "none"
        self.viewer = gradio_viewer(sign_in) if on else None
        self.quota_bytes = int(quota_mb * MB)
        self.tickets = ExportTickets()
        self._outputs: Any = None

    def outputs(self) -> Any:
        """The store's `OutputFiles` (made on first use, once the store is open)."""
        if self._outputs is None:
            from smolui.store.outputs import OutputFiles
            from smolui.store.quota import OwnerQuota

            store = self.keeper.store
            quota = OwnerQuota(store.engine, self.quota_bytes)
            self._outputs = OutputFiles(store.engine, store.files, quota)
        return self._outputs

    def upload_room(self, owner: str, adding: int) -> str | None:
        """None when `adding` more bytes of uploads fit in the owner's quota, else why not
        (the quota's message), for `HandlerConfig.upload_room`.

        Args:
            owner: Whose quota.
            adding: Bytes of the message's files.
        """
        from smolui.store.quota import QuotaExceededError

        try:
            self.outputs().quota.check(owner, adding)
        except QuotaExceededError as error:
            return str(error)
        return None

    def turn_files(self) -> Any:
        """What the turn runner uses to keep each turn's written files (`TurnFiles`)."""
        from smolui.turns.turn_files import TurnFiles

        return TurnFiles(self.outputs, FILES_PREFIX)

    def stored_chat(self, owner: str, conversation_id: str) -> list[dict[str, Any]] | None:
        """The owner's stored chat, safe to show, or None (unknown, someone else's, damaged).

        Args:
            owner: Who asks.
            conversation_id: Which conversation.
        """
        try:
            record = self.keeper.find(owner, conversation_id)
        except ConversationUnavailableError:
            return None
        return self.keeper.chat(record) if record is not None else None

    def export_link(self, owner: str, conversation_id: str, fmt: str) -> str | None:
        """Where the page downloads an export of the owner's stored conversation (None when
        nothing of it is stored yet: a new chat).

        Args:
            owner: The owner.
            conversation_id: The conversation shown.
            fmt: "md" or "json".
        """
        if not self.stored_chat(owner, conversation_id):
            return None
        return self.tickets.url(owner, conversation_id, fmt)

    def router(self) -> Any:
        """The download and export routes (a FastAPI router)."""
        from fastapi import APIRouter

        router = APIRouter()
        router.include_router(file_router(self.outputs, self.viewer))
        router.include_router(export_router(self.tickets, self.stored_chat, self.model_of))
        return router


__all__ = ["Downloads"]
