"""The side panel of a conversation, as a page asks for it: the model, whether a turn runs or
waits for an approval, the files uploaded and written, and "About this server".

A live conversation is described from its session; one whose agent was let go (a version
switch, eviction) from the store, for its owner only (`smolui.conversations.panel_facts`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from smolui.conversations.keeper import ConversationKeeper
from smolui.conversations.panel_facts import PanelFacts, live_facts, stored_facts
from smolui.render.about import ServerFacts
from smolui.render.downloads import place_files
from smolui.render.messages import Message
from smolui.sessions import Session, SessionRegistry, is_conversation_id
from smolui.turns.config import HandlerConfig
from smolui.turns.pending import PendingTurn
from smolui.turns.turn_files import TurnFiles


class SidePanel:
    """Draws a conversation's side panel (Markdown).

    Args:
        registry: The live conversations.
        config: The handlers' settings (model, executor, limits, approvals).
        keeper: The conversation store (None: only live conversations are described).
        files: The files turns wrote (None: none are listed).
        about: How the server keeps conversations, for "About this server" (None: defaults).
        stored_chat: A live conversation's stored chat, the branch shown (None: unreadable).
    """

    def __init__(
        self,
        registry: SessionRegistry,
        config: HandlerConfig,
        keeper: ConversationKeeper | None,
        files: TurnFiles | None,
        about: ServerFacts | None,
        stored_chat: Callable[[Session], list[Message] | None],
    ):
        self.registry = registry
        self.config = config
        self.keeper = keeper
        self.files = files
        self.about = about
        self.stored_chat = stored_chat

    def __call__(
        self,
        conversation_id: str | None,
        pending: PendingTurn | None = None,
        owner: str | None = None,
    ) -> str:
        """The side panel's Markdown for this conversation.

        Args:
            conversation_id: The page's conversation id.
            pending: The message a turn is starting with (from `echo`): the panel then says
                a turn runs and lists its files as being read. None: no turn starts now
                (the panel still says a turn runs while one does: a page reloaded mid-turn).
            owner: Whose page asks (from the request's identity). With it, a conversation
                whose agent was let go (a version switch, eviction) is described from the
                store, if it is this owner's. None: only a live conversation is described.
        """
        from smolui.render.panel import side_panel

        session = self.registry.get(conversation_id)
        if session is not None and owner is not None and session.owner not in (None, owner):
            session = None  # another owner's conversation: nothing of it is described
        if session is not None:
            shown: PanelFacts | None = live_facts(session)
        else:
            shown = self._stored_facts(conversation_id, owner)
        agent = session.built_agent if session is not None else None
        reading = [os.path.basename(path) for path in pending.files] if pending is not None else []
        kept = self._written(shown, session) if shown is not None else []
        config = self.config
        picked = shown.model if shown is not None else None
        if picked is not None and not config.model_available(picked):
            picked = None  # gone since it was stored: its next turn uses the default model
        # A page opened while a turn runs (a reload, a second tab) shows that turn running;
        # a stopped turn is over for the page, though its agent may still end its step.
        live = session.live_turn if session is not None else None
        turn_runs = session is not None and session.busy and live is not None and not live.done
        running = pending is not None or turn_runs
        # A turn that starts now waits for nobody yet (an action left waiting is withdrawn).
        approvals = config.approvals if pending is None and session is not None else None
        awaiting = approvals is not None and approvals.waiting(session.id) is not None
        return side_panel(
            picked or config.model_label(),
            agent,
            config.executor_type,
            config.max_steps,
            shown.uploads if shown is not None else [],
            running=running,
            reading=reading,
            written=kept,
            url_prefix=self.files.url_prefix if self.files is not None else "",
            awaiting_approval=awaiting,
            facts=self.about,
        )

    def _written(self, shown: PanelFacts, session: Session | None) -> list[Any]:
        """The stored files the conversation's turns wrote, each with the message whose turn
        wrote it in the branch shown (the chat is read then: a live one may have changed)."""
        if self.files is None:
            return []
        kept = self.files.kept(shown.conversation_id, shown.owner)
        if not kept:
            return []
        chat = shown.chat if session is None else self.stored_chat(session)
        return place_files(kept, chat, self.files.url_prefix)

    def _stored_facts(self, conversation_id: str | None, owner: str | None) -> PanelFacts | None:
        """The owner's stored conversation as the panel describes it, when its agent is not
        live (a version switch or eviction let it go); None without an owner or a store."""
        if owner is None or self.keeper is None or not is_conversation_id(conversation_id):
            return None
        return stored_facts(self.keeper, owner, conversation_id)


__all__ = ["SidePanel"]
