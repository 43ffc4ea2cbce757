"""The API's parts, built from the app's: who may call, the turns, the `/v1` routes."""

from __future__ import annotations

from typing import Any

from smolui.api.access import ApiAccess
from smolui.api.body_limit import BodyLimit, api_body_limit
from smolui.api.openai_routes import NoThreads, openai_router
from smolui.api.request_files import RequestFiles, web_fetch
from smolui.api.turns import ApiTurns
from smolui.auth import SignIn
from smolui.auth.keys import ApiKeys
from smolui.conversations.keeper import ConversationKeeper
from smolui.observability.observer import TurnObserver
from smolui.sessions import SessionRegistry
from smolui.turns.admission import TurnAdmission
from smolui.turns.config import HandlerConfig


class KeeperKeyRows:
    """The store's key rows, reached through the keeper (the store opens on first use).

    Args:
        keeper: The app's conversation keeper.
    """

    def __init__(self, keeper: ConversationKeeper):
        self.keeper = keeper

    def _rows(self) -> Any:
        from smolui.store.api_keys import StoreKeyRows

        return StoreKeyRows(self.keeper.store.engine)

    def add(self, user: str, digest: str, prefix: str) -> None:
        """Keep a new key's digest (see `StoreKeyRows.add`)."""
        self._rows().add(user, digest, prefix)

    def user_for(self, digest: str) -> str | None:
        """The user of a working key (see `StoreKeyRows.user_for`)."""
        return self._rows().user_for(digest)

    def any_active(self) -> bool:
        """Whether a key works (see `StoreKeyRows.any_active`)."""
        return self._rows().any_active()


class Api:
    """The app's other ways in, sharing its registry, store, gate and metrics.

    Args:
        registry: The live conversations.
        config: The handlers' settings.
        keeper: The conversation store's keeper (None: no keys, nothing kept).
        observer: Hears each turn (the app's metrics).
        admission: The app's gate; its sign-in decides who must bring a key.
        mcp: Also serve the agent as MCP tools at `/gradio_api/mcp/` (`--mcp`).
        fetch_urls: Fetch a file a caller sends as an http(s) URL, under the web rules of
            the agent's `visit_webpage` (the app gives it that tool); else such URLs are
            refused.
    """

    def __init__(
        self,
        registry: SessionRegistry,
        config: HandlerConfig,
        keeper: ConversationKeeper | None,
        observer: TurnObserver | None,
        admission: TurnAdmission,
        mcp: bool = False,
        fetch_urls: bool = False,
    ):
        self.keeper, self.mcp = keeper, mcp
        self.max_body_bytes = api_body_limit(config.max_files, config.policy.max_file_bytes)
        keys = ApiKeys(KeeperKeyRows(keeper)) if keeper is not None else None
        sign_in = admission.sign_in or SignIn(_no_sign_in())
        self.access = ApiAccess(sign_in, keys)
        self.turns = ApiTurns(registry, config, keeper, observer, admission)
        if fetch_urls:
            fetch = web_fetch(config.policy.max_file_bytes)
            self.turns.files = RequestFiles(config.policy, config.max_files, fetch=fetch)

    def body_limit(self) -> Any:
        """The size cap on the API's requests, for the served app to add as middleware (a
        Starlette `Middleware` of `BodyLimit`): the routes parse whole bodies, so it must
        refuse what is too large before they read it."""
        from starlette.middleware import Middleware

        prefixes = ["/v1/"]
        if self.mcp:
            from smolui.api.mcp_server import MCP_PATH

            prefixes.append(MCP_PATH)
        return Middleware(BodyLimit, limit=self.max_body_bytes, prefixes=prefixes)

    def threads(self) -> Any:
        """Where resent chats find their conversation (`StoreThreads`, or `NoThreads`)."""
        if self.keeper is None:
            return NoThreads()
        from smolui.store.api_keys import StoreThreads

        return StoreThreads(self.keeper.store.engine)

    def router(self) -> Any:
        """The `/v1` routes, and the MCP server when `mcp` is on (a FastAPI router whose
        lifespan runs the MCP server's sessions; make it once per served app)."""
        from fastapi import APIRouter

        router = APIRouter()
        router.include_router(openai_router(self.turns, self.access, self.threads))
        if self.mcp:
            from smolui.api.agent_tools import AgentTools
            from smolui.api.mcp_server import mcp_router

            router.include_router(mcp_router(AgentTools(self.turns, self.keeper), self.access))
        return router


def _no_sign_in() -> Any:
    from smolui.auth import AuthConfig

    return AuthConfig()
