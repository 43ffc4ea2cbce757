"""One app process as the conversation tests drive it, without a browser: the session
registry, the conversation keeper over a store, and the handlers a page talks to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from smolui.conversations.keeper import ConversationKeeper
from smolui.handlers.chat import ChatHandlers, HandlerConfig
from smolui.handlers.conversations import ConversationHandlers
from smolui.sessions import SessionRegistry
from smolui.uploads import UploadPolicy


class AppProcess:
    """The registry, keeper and handlers of one app process, wired as the app wires them.

    Args:
        registry: The sessions (with the test's agent factory).
        store: The conversation store (`smolui.store.open_store`).
        roots: Folders the saved chat may name files in (the media folder).
        config: The handlers' settings (default: uploads allowed, 2 steps, in-process code).
    """

    def __init__(
        self,
        registry: SessionRegistry,
        store: Any,
        roots: Sequence[str] = (),
        config: HandlerConfig | None = None,
    ):
        self.registry = registry
        self.keeper = ConversationKeeper(store, lambda: list(roots))
        self.registry.resume, self.registry.keep_files = self.keeper.resume, True
        config = config or HandlerConfig(policy=UploadPolicy(), max_steps=2, executor_type="local")
        self.chat = ChatHandlers(self.registry, config, self.keeper)
        self.pages = ConversationHandlers(self.registry, self.keeper)

    def send(self, text: str, conversation_id: str, chat: list, files: Sequence[str] = ()) -> list:
        """Send a message as the page does (echo, then the turn); the chat after the turn."""
        shown, pending = self.chat.echo({"text": text, "files": list(files)}, chat)
        return list(self.chat.run_turn(pending, shown, conversation_id))[-1][0]

    def close(self) -> None:
        self.registry.close_all()
        self.keeper.store.close()
