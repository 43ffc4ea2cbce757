"""Conversation handlers: page load, new chat, switch, list, search, rename, delete, page close.

Conversations live on the server, in the conversation store. The browser keeps only its owner
key (an unguessable secret, in `gr.BrowserState`) and the id of the conversation it shows:
`{"owner": key, "current": id}`. Every id the browser names is checked against its owner; an
unknown, forged or someone else's id gets a fresh conversation.
"""

from __future__ import annotations

import re
import secrets
import threading
from pathlib import Path
from typing import Any

from smolui.auth.identity import signed_in_owner
from smolui.conversations.branches import Branches
from smolui.conversations.interrupted import (
    INTERRUPTED_NOTE,  # noqa: F401 (kept importable here)
    is_interrupted,
    shared_store,
    with_interrupted_note,
)
from smolui.conversations.keeper import ConversationKeeper
from smolui.conversations.transcript_import import has_browser_transcripts, import_transcripts
from smolui.render.approval import waits_for_answer
from smolui.render.media import cached_copies, files_under, remove_files
from smolui.render.messages import Message, render_notice
from smolui.render.step_images import lift_step_images
from smolui.sessions import (
    ConversationUnavailableError,
    SessionCapacityError,
    SessionRegistry,
    is_conversation_id,
)
from smolui.sessions.model_choice import DEFAULT_CHOICE
from smolui.turns.config import HandlerConfig

# Conversations whose last refused pick is remembered (the newest): a doubled pick comes
# within moments, so a small bound loses nothing.
_REFUSALS_KEPT = 256
_OWNER_PATTERN = re.compile(r"^[A-Za-z0-9_-]{32,64}$")

# What a conversation handler returns: id, chat, browser state, side-list choices.
Loaded = tuple[str | None, list[Message], dict[str, Any], list[tuple[str, str]]]


def new_owner_key() -> str:
    """A fresh owner key: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def owner_of(state: Any) -> str:
    """The owner key in the browser's state, or a fresh one when it has none (or a bad one);
    the signed-in user's owner id when the server put one there (`smolui.auth.with_identity`).

    Args:
        state: The BrowserState value.
    """
    signed_in = signed_in_owner(state)
    if signed_in is not None:
        return signed_in
    owner = state.get("owner") if isinstance(state, dict) else None
    return owner if isinstance(owner, str) and _OWNER_PATTERN.match(owner) else new_owner_key()


class ConversationHandlers:
    """Conversation bookkeeping between the page, the live registry and the store.

    Args:
        registry: The live conversations (resuming stored ones through the keeper).
        keeper: Saves and finds stored conversations.
        cache_dir: Gradio's file cache, where copies of served files are removed with their
            conversation (None: gradio's default, `GRADIO_TEMP_DIR` or `<tmp>/gradio`).
    """

    def __init__(
        self,
        registry: SessionRegistry,
        keeper: ConversationKeeper,
        cache_dir: str | Path | None = None,
    ):
        self.registry = registry
        self.keeper = keeper
        self.cache_dir = cache_dir
        # The last pick each conversation refused, so that a pick is refused aloud once.
        self._refused: dict[str, str] = {}
        self._refusals_lock = threading.Lock()

    def load(self, state: Any, page: str | None = None) -> Loaded:
        """The page opened (or reloaded): reopen its conversation, or start one.

        Args:
            state: The browser's state (`{"owner", "current"}`).
            page: The page's session hash.
        """
        owner = owner_of(state)
        wanted = state.get("current") if isinstance(state, dict) else None
        if has_browser_transcripts(state):  # an older version's page: move its chats here
            wanted = import_transcripts(self.keeper, owner, state)
        return self._open(owner, wanted, page)

    def new_chat(self, state: Any, page: str | None = None, model: str | None = None) -> Loaded:
        """Start a new conversation; the others stay in the list.

        Args:
            state: The browser's state.
            page: The page's session hash.
            model: The model spec picked for it (None: the app's default).
        """
        return self._open(owner_of(state), None, page, model)

    def pick_model(self, model: str | None, conversation_id: str | None) -> bool:
        """The visitor picked a model: the shown conversation takes it while it has no
        turns (its agent is prepared again); otherwise it applies to the next new chat.

        Args:
            model: The picked model spec ("" or None: the app's default).
            conversation_id: The conversation shown.

        Returns:
            False when the visitor is to be told that the shown conversation keeps its own
            model (it has turns: the pick is for new chats only), once per pick: the page
            sends one pick made with the mouse twice. True otherwise, also with no live
            conversation shown (none started yet, or gone): nothing keeps a model then.
        """
        session = self.registry.get(conversation_id)
        if session is None:
            return True
        with self._refusals_lock:  # the doubled pick arrives on two threads at once
            if session.use_model(model or None):
                self._refused.pop(session.id, None)
            else:
                told = self._refused.pop(session.id, None) == (model or "")
                self._refused[session.id] = model or ""  # kept newest last
                if len(self._refused) > _REFUSALS_KEPT:
                    del self._refused[next(iter(self._refused))]
                return told  # True: this very pick was refused aloud already
        session.prepare()
        return True

    def model_of(self, conversation_id: str | None) -> str:
        """The model spec the conversation uses, as the picker's value ("": the default).

        Args:
            conversation_id: The conversation shown.
        """
        session = self.registry.get(conversation_id)
        return (session.model if session is not None else None) or DEFAULT_CHOICE

    def model_label(self, conversation_id: str | None, config: HandlerConfig) -> str:
        """The model the conversation runs, as the side panel names it: its own while the
        app still offers it, else the app's default (also with no conversation).

        Args:
            conversation_id: The conversation shown, or None.
            config: The app's handler settings (default model, models offered).
        """
        picked = self.model_of(conversation_id)
        return picked if picked and config.model_available(picked) else config.model_label()

    def switch(
        self,
        wanted: Any,
        conversation_id: str | None,
        state: Any,
        page: str | None = None,
        query: str = "",
    ) -> Loaded:
        """Open a conversation chosen in the list; chosen from a search, on the branch that
        holds the words searched for.

        Args:
            wanted: The chosen conversation id.
            conversation_id: The conversation shown now.
            state: The browser's state.
            page: The page's session hash.
            query: The words searched for when it was chosen ("" for none).
        """
        owner = owner_of(state)
        if wanted == conversation_id or not is_conversation_id(wanted):
            return self._open(owner, conversation_id, page)
        if query and query.strip():
            Branches(self.keeper, self.registry).show_match(owner, wanted, query)
        return self._open(owner, wanted, page)

    def refresh(
        self, conversation_id: str | None, state: Any, query: str = ""
    ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """The browser state and the list, after a turn or while searching.

        Args:
            conversation_id: The conversation shown.
            state: The browser's state.
            query: Words to search for in titles and messages.
        """
        owner = owner_of(state)
        return {"owner": owner, "current": conversation_id}, self.choices(owner, query)

    def rename(
        self, title: str, conversation_id: str | None, state: Any
    ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        """Rename the conversation shown.

        Args:
            title: The new title.
            conversation_id: The conversation shown.
            state: The browser's state.
        """
        owner = owner_of(state)
        if conversation_id and title and title.strip():
            self.keeper.rename(owner, conversation_id, title)
        return self.refresh(conversation_id, {"owner": owner})

    def delete(self, conversation_id: str | None, state: Any, page: str | None = None) -> Loaded:
        """Delete the conversation shown (memory and files too) and start a new one.

        Args:
            conversation_id: The conversation shown.
            state: The browser's state.
            page: The page's session hash.
        """
        owner = owner_of(state)
        if conversation_id and self._owns(owner, conversation_id):
            copies = self._cached_copies(owner, [conversation_id])
            self.registry.evict(conversation_id, "deleted")
            self.keeper.delete(owner, conversation_id)
            remove_files(copies)
        return self._open(owner, None, page)

    def delete_all(self, state: Any, page: str | None = None) -> Loaded:
        """Delete every conversation of this browser's owner and start a new one.

        Args:
            state: The browser's state.
            page: The page's session hash.
        """
        owner = owner_of(state)
        ids = [summary.id for summary in self.keeper.list(owner)]
        copies = self._cached_copies(owner, ids)
        for conversation_id in ids:
            self.registry.evict(conversation_id, "deleted")
        self.keeper.delete_all(owner)
        remove_files(copies)
        return self._open(owner, None, page)

    def _cached_copies(self, owner: str, conversation_ids: list[str]) -> list[Path]:
        """Gradio's cached copies of the conversations' files (found before they are deleted:
        a copy's place depends on the file's bytes), and the live agents' media files. Gradio
        serves its copies without a cookie, so they go with the conversation."""
        from gradio.processing_utils import hash_file
        from gradio.utils import get_upload_folder
        from gradio_client.utils import strip_invalid_filename_characters

        def copy_name(path: Path) -> str:
            return f"{hash_file(path)}/{strip_invalid_filename_characters(path.name)}"

        files: list[Path] = []
        media: list[Path] = []  # the live agent's own folder (the store deletes its own)
        for conversation_id in conversation_ids:
            files += self.keeper.files_of(owner, conversation_id)
            live = self.registry.get(conversation_id)
            if live is not None and live.owner == owner and live.media_dir is not None:
                media += files_under(live.media_dir)
        cache = Path(self.cache_dir or get_upload_folder())
        return cached_copies(files + media, cache, copy_name) + media

    def page_closed(self, page: str | None) -> None:
        """The page closed or reloaded: its conversations enter their grace period.

        Args:
            page: The page's session hash.
        """
        if page:
            self.registry.page_closed(page)

    def choices(self, owner: str, query: str = "") -> list[tuple[str, str]]:
        """(label, id) pairs for the list, newest first: the title and the date.

        Args:
            owner: Whose conversations.
            query: Search words.
        """
        return [
            (f"{c.title} · {c.updated:%b %d, %H:%M}", c.id) for c in self.keeper.list(owner, query)
        ]

    def _owns(self, owner: str, conversation_id: str) -> bool:
        live = self.registry.get(conversation_id)
        if live is not None and live.owner == owner:
            return True
        return self.keeper.find(owner, conversation_id) is not None

    def _open(self, owner: str, wanted: Any, page: str | None, model: str | None = None) -> Loaded:
        notes: list[Message] = []
        chat: list[Message] = []
        target = None
        if is_conversation_id(wanted):
            try:
                target, chat, notes = self._stored(owner, wanted, page)
            except ConversationUnavailableError as error:
                notes = [render_notice(str(error), "⚠️")]
        try:
            session, problems = self._session(target, page)
        except SessionCapacityError as error:
            return target, chat + [render_notice(str(error), "⚠️")], {"owner": owner,
                    "current": target}, self.choices(owner)  # fmt: skip
        if problems:
            chat, notes = [], problems
        if session.owner is None:
            session.owner = owner
        if model and target is None:  # a conversation with history keeps its own model
            session.use_model(model)
        if not self._warm_elsewhere(owner, session):
            session.prepare()
        state = {"owner": owner, "current": session.id}
        # Chats saved before step images were lifted show them too (`step_images`).
        return session.id, lift_step_images(chat) + notes, state, self.choices(owner)

    def _warm_elsewhere(self, owner: str, session: Any) -> bool:
        """Whether another live conversation of `owner` holds a prepared agent no turn used
        yet: one unused sandbox worker per owner, so repeated page opens or "New chat"
        clicks do not start a worker each (this one's first turn builds its own)."""
        return any(
            other is not session
            and other.owner == owner
            and other.has_agent
            and not other.has_history
            for other in self.registry.sessions()
        )

    def _session(self, target: str | None, page: str | None) -> tuple[Any, list[Message]]:
        """Open `target` (None: a new conversation); a damaged one gives a new one and a note."""
        try:
            return self.registry.open(target, page), []
        except SessionCapacityError:
            raise
        except ConversationUnavailableError as error:
            return self.registry.open(None, page), [render_notice(str(error), "⚠️")]

    def _stored(
        self, owner: str, wanted: str, page: str | None
    ) -> tuple[str | None, list[Message], list[Message]]:
        """The id to open (None: a new one), its chat and notes, after the owner check."""
        live = self.registry.get(wanted)
        turn = live.live_turn if live is not None and live.owner == owner else None
        if turn is not None and not turn.done:  # a turn runs: show it so far, then follow it
            return wanted, turn.shown_to(page), []
        record = self.keeper.find(owner, wanted)
        if record is None:
            # A live conversation with no turn yet is not stored; only its owner gets it.
            return (wanted if live is not None and live.owner == owner else None), [], []
        # The same rule as an API turn's (`smolui.conversations.interrupted`): the page shows
        # the note, and its next turn keeps it with the chat.
        dead = is_interrupted(record, live, shared_store(self.keeper.store))
        chat = self.keeper.chat(record)
        # An action kept waiting for an answer (its turn resumes once answered) shows as the
        # live page showed it: its card says what to do, not an "interrupted" note.
        return wanted, with_interrupted_note(chat, dead and not waits_for_answer(chat)), []
