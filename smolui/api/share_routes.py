"""Read-only share links (`SMOLUI_SHARING=off|signed-in|public`): the owner's page makes or
revokes them (`ShareLinks.create` / `stop`, from a gradio event that knows the owner), and
the app's own route shows one: `/smolui/share/<token>` is plain HTML rendered from the
snapshot kept when the link was made, its images (and the attachments the owner chose to
share, as downloads) served beside it. The shared page runs nothing. An unknown or revoked token, or any token while sharing is off, is a 404;
with `signed-in`, a visitor who has not signed in to the app is refused.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from starlette.requests import Request  # module level: FastAPI reads the routes' annotations

from smolui.api.file_routes import FILES_PREFIX, attachment
from smolui.api.viewer import Viewer, gradio_viewer
from smolui.conversations.branches import active_path_messages
from smolui.conversations.keeper import ConversationKeeper
from smolui.render.share_page import (
    content_security_policy,
    hider,
    share_page,
    share_snapshot,
    shared_file,
    shared_image,
    upload_names,
)
from smolui.sessions import ConversationUnavailableError

logger = logging.getLogger(__name__)

SHARE_PREFIX = "/smolui/share"
SHARING_MODES = ("off", "signed-in", "public")
NOT_FOUND = "No such shared conversation (the link may have been revoked)."
SIGN_IN_NEEDED = "Sign in to this app to see this shared conversation."
# Nothing in between keeps a copy (a revoked link must stop at once), no search engine lists
# it, and a link clicked in the page does not tell another site the token.
PAGE_HEADERS = {
    "Cache-Control": "private, no-store",
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex, nofollow",
    "X-Content-Type-Options": "nosniff",
}


class ShareLinks:
    """The app's share links: made and revoked by owners, shown by the share route.

    Args:
        keeper: The app's conversation keeper (the store opens on first use).
        mode: "off", "signed-in" or "public".
        viewer: Who a request to the share route comes from (needed for "signed-in").
    """

    def __init__(self, keeper: ConversationKeeper, mode: str, viewer: Viewer | None = None):
        if mode not in SHARING_MODES:
            raise ValueError(f"sharing must be one of {', '.join(SHARING_MODES)}, not {mode!r}")
        self.keeper, self.mode, self.viewer = keeper, mode, viewer
        self._shares: Any = None

    @property
    def enabled(self) -> bool:
        """Whether owners may share at all."""
        return self.mode != "off"

    def shares(self) -> Any:
        """The store's `ConversationShares` (made on first use, once the store is open)."""
        if self._shares is None:
            from smolui.store.shares import ConversationShares

            self._shares = ConversationShares(self.keeper.store.engine)
        return self._shares

    def create(self, owner: str, conversation_id: str, include_uploads: bool = False) -> str | None:
        """A new link to a snapshot of the branch shown; its path, or None when there is
        nothing to share (sharing off, or the owner has no such stored conversation).

        Args:
            owner: Who shares.
            conversation_id: The conversation shown.
            include_uploads: Share the owner's attachments too.
        """
        if not self.enabled:
            return None
        try:
            chat = active_path_messages(self.keeper, owner, conversation_id)
        except ConversationUnavailableError:
            return None
        snapshot = share_snapshot(chat, FILES_PREFIX, include_uploads)
        # The title quotes the first message, which may name an attachment not shared.
        retitle = hider(() if include_uploads else upload_names(chat))
        token = self.shares().create(owner, conversation_id, snapshot, retitle)
        return f"{SHARE_PREFIX}/{token}" if token is not None else None

    def stop(self, owner: str, conversation_id: str) -> int:
        """Revoke every working link of the owner's conversation; how many there were.

        Args:
            owner: Whose links.
            conversation_id: Which conversation.
        """
        return self.shares().revoke(owner, conversation_id)

    def may_view(self, request: Any) -> bool:
        """Whether this visitor may see shared pages now.

        Args:
            request: The HTTP request.
        """
        if self.mode == "public":
            return True
        if self.mode == "signed-in" and self.viewer is not None:
            return self.viewer(request).signed_in
        return False

    def router(self) -> Any:
        """The share page and its images (a FastAPI router)."""
        from fastapi import APIRouter
        from fastapi.responses import FileResponse, HTMLResponse, PlainTextResponse

        router = APIRouter()

        def refused(request: Request) -> Any:
            if self.may_view(request):
                return None
            if self.mode == "signed-in":
                return PlainTextResponse(SIGN_IN_NEEDED, 401, headers=PAGE_HEADERS)
            return PlainTextResponse(NOT_FOUND, 404, headers=PAGE_HEADERS)

        @router.get(SHARE_PREFIX + "/{token}", include_in_schema=False)
        def shared(token: str, request: Request) -> Any:
            refusal = refused(request)
            found = self.shares().find(token) if refusal is None else None
            if refusal is not None or found is None:
                return refusal or PlainTextResponse(NOT_FOUND, 404, headers=PAGE_HEADERS)
            page = share_page(
                found.title,
                found.snapshot,
                lambda n: f"{token}/images/{n}",
                lambda n: f"{token}/files/{n}",
            )
            headers = {**PAGE_HEADERS, "Content-Security-Policy": content_security_policy()}
            return HTMLResponse(page, headers=headers)

        @router.get(SHARE_PREFIX + "/{token}/images/{index}", include_in_schema=False)
        def image(token: str, index: int, request: Request) -> Any:
            refusal = refused(request)
            found = self.shares().find(token) if refusal is None else None
            served = shared_image(found.snapshot, index) if found is not None else None
            path = self._servable(served[0]) if served is not None else None
            if refusal is not None or path is None:
                return refusal or PlainTextResponse(NOT_FOUND, 404, headers=PAGE_HEADERS)
            return FileResponse(path, media_type=served[1], headers=PAGE_HEADERS)

        @router.get(SHARE_PREFIX + "/{token}/files/{index}", include_in_schema=False)
        def file(token: str, index: int, request: Request) -> Any:
            refusal = refused(request)
            found = self.shares().find(token) if refusal is None else None
            served = shared_file(found.snapshot, index) if found is not None else None
            path = self._servable(served[0]) if served is not None else None
            if refusal is not None or path is None:
                return refusal or PlainTextResponse(NOT_FOUND, 404, headers=PAGE_HEADERS)
            # Saved, never shown by the browser: an attachment may be HTML or a script.
            headers = {**PAGE_HEADERS, **attachment(served[1])}
            return FileResponse(path, media_type="application/octet-stream", headers=headers)

        return router

    def _servable(self, path: str) -> Path | None:
        """`path` when it is a file in a folder the app shows (its media), else None: a
        snapshot names only such files, and this holds even if a row were forged."""
        real = os.path.realpath(path)
        for root in self.keeper.allowed_roots():
            base = os.path.realpath(root)
            if real.startswith(base + os.sep) and os.path.isfile(real):
                return Path(real)
        return None


__all__ = ["SHARE_PREFIX", "SHARING_MODES", "ShareLinks", "gradio_viewer"]
