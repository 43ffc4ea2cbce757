"""Conversation handlers: page load, new chat, switching, saving transcripts, page close.

The browser keeps its conversations (ids and transcripts) in `gr.BrowserState`; the server
keeps the agents. A reload finds the agent while it lives; otherwise the transcript comes
back with a note that the agent's memory was not kept. An id the registry does not know
(forged, expired, from before a restart) always gets a fresh conversation.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from smolui import transcripts
from smolui.render import Message, render_notice
from smolui.sessions import SessionCapacityError, SessionRegistry

MEMORY_LOST_NOTE = (
    "This conversation was restored from your browser, but the agent's memory of it was not "
    "kept (it was idle too long, or the server restarted). The agent starts fresh from here."
)

# What a conversation handler returns: id, chat, browser store, side-list choices.
Loaded = tuple[str | None, list[Message], dict[str, Any], list[tuple[str, str]]]


class ConversationHandlers:
    """Conversation bookkeeping between the browser store and the registry.

    Args:
        registry: The live conversations.
        allowed_roots: Folders whose files a restored transcript may show.
        clock: Wall clock for ordering conversations.
    """

    def __init__(
        self,
        registry: SessionRegistry,
        allowed_roots: Callable[[], list[str]],
        clock: Callable[[], float] = time.time,
    ):
        self.registry = registry
        self.allowed_roots = allowed_roots
        self.clock = clock

    def _store(self, value: Any) -> dict[str, Any]:
        return transcripts.normalize_store(value, self.allowed_roots())

    def load(self, store_value: Any, page: str | None = None) -> Loaded:
        """The page opened (or reloaded): reattach to its conversation, or start one.

        Args:
            store_value: The browser's store.
            page: The page's session hash.
        """
        store = self._store(store_value)
        return self._open(store, store.get("current"), page)

    def _open(self, store: dict[str, Any], wanted: str | None, page: str | None) -> Loaded:
        entry = transcripts.find(store, wanted) if wanted else None
        try:
            session = self.registry.open(wanted, page)
        except SessionCapacityError as error:
            chat = list(entry["messages"]) if entry else []
            return (
                wanted,
                chat + [render_notice(str(error), "⚠️")],
                store,
                transcripts.choices(store),
            )
        session.prepare()
        chat = list(entry["messages"]) if entry else []
        if entry is not None and session.id != wanted:
            chat.append(render_notice(MEMORY_LOST_NOTE, "ℹ️"))
            store = transcripts.rekey(store, wanted, session.id)
        store = transcripts.upsert(store, session.id, chat, self.clock()) if chat or entry else {
            **store, "current": session.id}  # fmt: skip
        return session.id, chat, store, transcripts.choices(store)

    def _saved_store(self, chat: list[Message], conversation_id: str | None, store_value: Any):
        """The browser's store with the current chat saved into it (when there is one)."""
        if chat:
            return self.save(chat, conversation_id, store_value)[0]
        return self._store(store_value)

    def save(
        self, chat: list[Message], conversation_id: str | None, store_value: Any
    ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """Keep the transcript in the browser after a turn (or a clear).

        Args:
            chat: The chat as the page shows it.
            conversation_id: The page's conversation id.
            store_value: The browser's store.
        """
        store = self._store(store_value)
        if not conversation_id:
            return store, transcripts.choices(store)
        messages = transcripts.sanitize_messages(
            chat, [os.path.realpath(r) for r in self.allowed_roots()]
        )
        store = transcripts.upsert(store, conversation_id, messages, self.clock())
        return store, transcripts.choices(store)

    def new_chat(
        self,
        chat: list[Message],
        conversation_id: str | None,
        store_value: Any,
        page: str | None = None,
    ) -> Loaded:
        """Start a new conversation; the current one stays in the side list with its agent.

        Args:
            chat: The current chat (saved first).
            conversation_id: The current conversation id.
            store_value: The browser's store.
            page: The page's session hash.
        """
        store = self._saved_store(chat, conversation_id, store_value)
        return self._open(store, None, page)

    def switch(
        self,
        wanted: str | None,
        chat: list[Message],
        conversation_id: str | None,
        store_value: Any,
        page: str | None = None,
    ) -> Loaded:
        """Reopen a past conversation from the side list.

        Args:
            wanted: The chosen conversation id.
            chat: The current chat (saved first).
            conversation_id: The current conversation id.
            store_value: The browser's store.
            page: The page's session hash.
        """
        store = self._saved_store(chat, conversation_id, store_value)
        if wanted == conversation_id or transcripts.find(store, wanted) is None:
            return conversation_id, chat, store, transcripts.choices(store)
        return self._open(store, wanted, page)

    def page_closed(self, page: str | None) -> None:
        """The page closed or reloaded: its conversations enter their grace period.

        Args:
            page: The page's session hash.
        """
        if page:
            self.registry.page_closed(page)
