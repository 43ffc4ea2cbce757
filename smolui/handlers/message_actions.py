"""Per-message actions on the chat's own icons: retry, undo, edit, and versions.

gradio's Chatbot shows retry and undo under the last answer and a pencil on user messages
(`.retry`, `.undo`, `.edit` events); copy is its built-in button. Each action is mapped onto
the conversation's agent the way the Retry button is: the last turn leaves the agent's
memory and the code's variables go back to where they were (`agent.undo_last_turn()`).

A stored conversation is a tree (`smolui.conversations.branches`): editing any of the
person's messages, or answering one again, starts a branch there and keeps the old one; the
page switches between a message's versions. Editing an earlier message lets the live agent
go, so the next turn remembers only the new branch.

`MessageActions` holds the logic and returns plain values plus a short notice for the page;
`smolui.ui.message_actions` turns them into gradio handlers and wires them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from smolui.conversations.branches import Branches
from smolui.conversations.titles import follow_first_message, forget_first_message
from smolui.handlers.chat import ChatHandlers
from smolui.render.attachments import is_refused_chip
from smolui.sessions import Session, is_conversation_id
from smolui.turns.pending import PendingTurn

logger = logging.getLogger(__name__)

Message = dict[str, Any]

NOTHING_TO_UNDO = "There is nothing to undo yet."
NOTHING_TO_RETRY = "There is no message to retry yet."
STILL_RUNNING = "The agent is still answering: stop it first."
RETRY_AFTER_STOP = (
    "Retrying as soon as the stopped answer ends its current step (a model call or code "
    "run in progress finishes first)."
)
RETRY_ALREADY_WAITING = "A retry is already waiting for the stopped answer to end."
ONLY_LAST_EDITABLE = "Only your last message can be edited."
ONLY_OWN_EDITABLE = "Only your own messages can be edited."
NO_VERSIONS = "This message has no other version there."
NO_EDIT_WITH_FILES = (
    "A message with attachments cannot be edited: undo it and send it again with its files."
)
EMPTY_EDIT = "An edited message cannot be empty; use undo to take it back."


@dataclass(frozen=True)
class ActionResult:
    """What an action leaves: the chat to show, the request to run (or None), a notice.

    Args:
        chat: The chat messages the page shows next.
        pending: What `ChatHandlers.run_turn` runs next (a message, a retry, or a retry that
            waits for the stopped turn to end), or None when nothing runs.
        notice: A short line for the page (a toast) when the action did not happen.
        given_back: The text of a message taken back (an undo), for the message box, so
            the person can change it and send it again; None when nothing was taken back.
    """

    chat: list[Message]
    pending: PendingTurn | None = None
    notice: str | None = None
    given_back: str | None = None


def text_only(content: Any) -> str | None:
    """The text of a message that holds only text, or None when it holds a file.

    Args:
        content: A chat message's content: a string, a file dict, or gradio's normalized
            list of `{"type": "text" | "file" | "component", ...}` blocks.
    """
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        parts = [text_only(block) for block in content]
        return None if any(part is None for part in parts) else "".join(parts)  # type: ignore[arg-type]
    if isinstance(content, dict) and content.get("type") == "text":
        return str(content.get("text") or "")
    return None


def user_turn_at(history: list[Message], index: int) -> tuple[int, int] | None:
    """The person's turn holding message `index`: (its first message, its last), or None
    when that message is not theirs.

    Args:
        history: The chat.
        index: A message's position.
    """
    if not 0 <= index < len(history) or not _is_user(history[index]):
        return None
    first, last = index, index
    while first > 0 and _is_user(history[first - 1]):
        first -= 1
    while last + 1 < len(history) and _is_user(history[last + 1]):
        last += 1
    return first, last


def last_user_turn(history: list[Message]) -> tuple[int, int] | None:
    """Where the last user turn sits: (its first message, its last message), or None.

    A turn the person sent is a run of consecutive user messages (attachments, then text);
    everything after it is the agent's answer to it.

    Args:
        history: The chat.
    """
    last = next((i for i in range(len(history) - 1, -1, -1) if _is_user(history[i])), None)
    if last is None:
        return None
    first = last
    while first > 0 and _is_user(history[first - 1]):
        first -= 1
    return first, last


class MessageActions:
    """Retry, undo and edit of the last turn, for one app's conversations.

    Args:
        chat: The page's turn handlers (their registry finds the conversation).
    """

    def __init__(self, chat: ChatHandlers):
        self.chat = chat

    def undo(self, history: list[Message], conversation_id: str | None) -> ActionResult:
        """Take the last turn back: out of the chat, the agent's memory and its variables;
        its text is given back for the message box (its files are not: they are attached
        again).

        Args:
            history: The chat.
            conversation_id: The page's conversation id.
        """
        history = list(history or [])
        turn = last_user_turn(history)
        if turn is None:
            return ActionResult(history, notice=NOTHING_TO_UNDO)
        session = self.chat.registry.get(conversation_id)
        if session is not None:
            if not self._forget(session):
                return ActionResult(history, notice=STILL_RUNNING)
            self._save(session, history[: turn[0]])
            if _first_text(history[: turn[0]]) is None:  # the first message: its title goes
                forget_first_message(
                    self.chat.keeper, session.owner, conversation_id, _first_text(history)
                )
        return ActionResult(history[: turn[0]], given_back=_typed_text(history, turn))

    def retry(self, history: list[Message], conversation_id: str | None) -> ActionResult:
        """Run the last message again. After an undo the agent no longer holds the request
        of the turn now last, so its text is sent again (a message with files cannot be).
        Right after Stop the stopped turn still ends its step: the retry then waits for it.

        Args:
            history: The chat.
            conversation_id: The page's conversation id.
        """
        history = list(history or [])
        session = self.chat.registry.get(conversation_id)
        if session is not None and session.busy:
            return _retry_when_stopped(session, history)
        if session is not None and session.last_request is not None:
            shown, pending = self.chat.retry(history, conversation_id)
            if pending is not None:
                self._keep_answer(history, conversation_id)
            return ActionResult(shown, pending, None if pending else STILL_RUNNING)
        turn = last_user_turn(history)
        text = _turn_text(history, turn)
        if turn is None or not text:
            return ActionResult(history, notice=NOTHING_TO_RETRY)
        if session is not None and not self._forget(session):
            return ActionResult(history, notice=STILL_RUNNING)
        self._keep_answer(history, conversation_id)
        return ActionResult(history[: turn[1] + 1], PendingTurn.message(text))

    def _keep_answer(self, history: list[Message], conversation_id: str | None) -> None:
        """The answer being made again stays as a version: the new one goes on a branch."""
        owner = self._tree_owner(conversation_id)
        turn = last_user_turn(history)
        if owner is not None and turn is not None and turn[1] + 1 < len(history):
            self._branches().fork(owner, conversation_id, turn[1] + 1, history)  # type: ignore[arg-type]

    def edit(
        self,
        history: list[Message],
        conversation_id: str | None,
        index: int,
        text: Any,
        previous: Any,
    ) -> ActionResult:
        """Replace one of the person's messages and answer it again. In a stored
        conversation any text message can be edited: a branch starts there and the old one
        is kept. Otherwise only the last (its old answer is undone).

        The page has already put the new text in place; when the edit cannot happen the
        message gets its old content back.

        Args:
            history: The chat, with the edited message as the page shows it.
            conversation_id: The page's conversation id.
            index: The edited message's position in the chat.
            text: The new text.
            previous: The message's content before the edit.
        """
        history = list(history or [])
        restored = _with_content(history, index, previous)
        turn, last = user_turn_at(history, index), last_user_turn(history)
        if turn is None or text_only(previous) is None:
            return ActionResult(restored, notice=ONLY_OWN_EDITABLE)
        owner = self._tree_owner(conversation_id)
        if turn != last and owner is None:
            return ActionResult(restored, notice=ONLY_LAST_EDITABLE)
        if _turn_text(history, turn) is None:
            return ActionResult(restored, notice=NO_EDIT_WITH_FILES)
        new_text = (text_only(text) or "").strip()
        if not new_text:
            return ActionResult(restored, notice=EMPTY_EDIT)
        session = self.chat.registry.get(conversation_id)
        if session is not None and session.busy:
            return ActionResult(restored, notice=STILL_RUNNING)
        if owner is not None:
            self._branches().fork(owner, conversation_id, turn[0], restored)  # type: ignore[arg-type]
        if turn != last:  # its agent remembers turns after it: the new branch resumes
            self._branches().follow(conversation_id)  # type: ignore[arg-type]
        elif session is not None and not self._forget(session):
            return ActionResult(restored, notice=STILL_RUNNING)
        if _first_text(history[: turn[0]]) is None:  # the first message: the title follows
            follow_first_message(
                self.chat.keeper, owner, conversation_id, text_only(previous), new_text
            )
        shown = history[: turn[0]] + [{"role": "user", "content": new_text}]
        return ActionResult(shown, PendingTurn.message(new_text))

    def switch(
        self, history: list[Message], conversation_id: str | None, position: int, step: int
    ) -> ActionResult:
        """Show the previous (`step` -1) or next (1) version of message `position`.

        Args:
            history: The chat shown.
            conversation_id: The page's conversation id.
            position: The message whose version changes.
            step: -1 or 1.
        """
        history = list(history or [])
        owner = self._tree_owner(conversation_id)
        if owner is None or step not in (-1, 1) or not isinstance(position, int):
            return ActionResult(history, notice=NO_VERSIONS)
        session = self.chat.registry.get(conversation_id)
        if session is not None and session.busy:
            return ActionResult(history, notice=STILL_RUNNING)
        shown = self._branches().switch(owner, conversation_id, position, step)  # type: ignore[arg-type]
        if shown is None:
            return ActionResult(history, notice=NO_VERSIONS)
        # Another first message shown: the title made from the one left follows it.
        follow_first_message(
            self.chat.keeper, owner, conversation_id, _first_text(history), _first_text(shown)
        )
        return ActionResult(shown)

    def versions(self, conversation_id: str | None) -> list[dict[str, Any]]:
        """The versions of the messages shown, for the page's switchers (empty: none).

        Args:
            conversation_id: The page's conversation id.
        """
        owner = self._tree_owner(conversation_id)
        if owner is None:
            return []
        return self._branches().versions(owner, conversation_id)  # type: ignore[arg-type]

    def _branches(self) -> Branches:
        return Branches(self.chat.keeper, self.chat.registry)  # type: ignore[arg-type]

    def _tree_owner(self, conversation_id: str | None) -> str | None:
        """The owner of a stored conversation (None: nothing is stored, so it has no
        branches)."""
        if self.chat.keeper is None or not is_conversation_id(conversation_id):
            return None
        try:
            return self._branches().owner(conversation_id)  # type: ignore[arg-type]
        except Exception:  # the store is unreachable: the last message stays editable
            logger.warning("could not look up a conversation's branches", exc_info=True)
            return None

    def _forget(self, session: Session) -> bool:
        """The agent forgets its last turn; False when a turn runs now."""
        if not session.begin_turn(wait=0.0):
            return False
        try:
            if session.has_agent or session.restore is not None:
                session.agent.undo_last_turn()
            session.last_request = None
        finally:
            session.end_turn()
        return True

    def _save(self, session: Session, chat: list[Message]) -> None:
        keeper = self.chat.keeper
        if keeper is not None and session.owner is not None:
            keeper.save(session, chat, "idle")


def _retry_when_stopped(session: Session, history: list[Message]) -> ActionResult:
    """Retry while a turn runs: refused unless it was stopped; a stopped turn still ends its
    step, so the retry is queued behind it (`ChatHandlers.run_turn` waits for its end)."""
    if not session.stop_requested.is_set():
        return ActionResult(history, notice=STILL_RUNNING)
    if session.retry_after_stop:
        return ActionResult(history, notice=RETRY_ALREADY_WAITING)
    session.retry_after_stop = True
    return ActionResult(history, PendingTurn.retry_last(after_stop=True), RETRY_AFTER_STOP)


def _is_user(message: Message) -> bool:
    return message.get("role") == "user"


def _turn_text(history: list[Message], turn: tuple[int, int] | None) -> str | None:
    """The text of a turn made of text only (None when it carries files)."""
    if turn is None:
        return None
    contents = [message.get("content") for message in history[turn[0] : turn[1] + 1]]
    if any(is_refused_chip(content) for content in contents):  # a file, though refused
        return None
    parts = [text_only(content) for content in contents]
    if any(part is None for part in parts):
        return None
    return "\n".join(part for part in parts if part).strip()  # type: ignore[misc]


def _typed_text(history: list[Message], turn: tuple[int, int]) -> str | None:
    """What the person typed in a turn (its text messages; files and refused files left
    out), or None when they typed nothing."""
    parts = []
    for message in history[turn[0] : turn[1] + 1]:
        content = message.get("content")
        text = None if is_refused_chip(content) else text_only(content)
        if text and text.strip():
            parts.append(text.strip())
    return "\n".join(parts) or None


def _first_text(history: list[Message]) -> str | None:
    """The first text the person wrote in `history` (files and refused files skipped)."""
    for message in history:
        content = message.get("content")
        if _is_user(message) and not is_refused_chip(content):
            text = text_only(content)
            if text and text.strip():
                return text
    return None


def _with_content(history: list[Message], index: int, content: Any) -> list[Message]:
    if not 0 <= index < len(history) or content is None:
        return history
    changed = list(history)
    changed[index] = {**changed[index], "content": content}
    return changed
