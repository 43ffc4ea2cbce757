"""What the MCP server's tools do, apart from MCP: ask the agent (a turn through the page's
turn path), list and read the caller's own conversations, as text for an MCP client."""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from smolui.api.access import Caller
from smolui.api.request_files import FilesRefused, GivenFile
from smolui.api.text import FileUrl, StepText, answer_text, content_text
from smolui.api.turns import NOT_FOUND, ApiTurns, TurnRefused
from smolui.conversations.keeper import ConversationKeeper
from smolui.sessions import ConversationUnavailableError, is_conversation_id

NO_ANSWER = "(The agent gave no answer.)"
BAD_ID = "This is not a conversation id (list_conversations gives them)."

# A short note on progress: what the turn does now (its place in the queue, a step done).
Progress = Callable[[int, str], None]


@dataclass(frozen=True)
class Answer:
    """A finished turn, for the client.

    Args:
        text: The answer as Markdown (images and files as links to the app's file route).
        conversation_id: The conversation, to continue it.
    """

    text: str
    conversation_id: str


class AgentTools:
    """Turns and conversations for one caller at a time.

    Args:
        turns: Starts turns through the page's turn path (sign-in, limits, queue, store).
        keeper: The conversation store (None: nothing is kept, so nothing is listed).
    """

    def __init__(self, turns: ApiTurns, keeper: ConversationKeeper | None):
        self.turns, self.keeper = turns, keeper

    def ask(
        self,
        caller: Caller,
        task: str,
        conversation_id: str | None,
        file_url: FileUrl,
        progress: Progress | None = None,
        files: Sequence[dict[str, Any]] = (),
    ) -> Answer:
        """Run one turn to its end (it may wait in the queue first).

        Args:
            caller: Who asks.
            task: The user's message.
            conversation_id: The conversation to continue (None: a new one).
            file_url: Turns a served file's path into a URL.
            progress: Hears what the turn does while it runs.
            files: Files for the turn, each `{"name", "data"}` (base64 or a data: URL) or an
                MCP resource's contents (`{"uri", "mimeType", "blob" or "text"}`).

        Raises:
            TurnRefused: Not theirs, busy, a file refused (400), or the gate refused it
                (the page's message).
        """
        if conversation_id is not None and not is_conversation_id(conversation_id):
            raise TurnRefused(BAD_ID, 400)
        if not task.strip():
            raise TurnRefused("The task is empty: say what the agent should do.", 400)
        try:
            saved = self.turns.files.save([given_file(item, i) for i, item in enumerate(files)])
        except FilesRefused as refused:
            raise TurnRefused(str(refused), 400) from None
        try:
            turn = self.turns.start(caller, task, conversation_id, saved.paths)
        except TurnRefused:
            saved.discard()  # no turn will ingest them
            raise
        steps, told, count = StepText(file_url), "", 0
        for messages, waiting in turn.updates():
            notes = [answer_text(messages, file_url)] if waiting else steps.new_parts(messages)
            for note in notes:
                if progress is not None and note and note != told:
                    told, count = note, count + 1
                    progress(count, note.strip().splitlines()[0].strip("*"))
        answer = answer_text(turn.last, file_url) or NO_ANSWER
        return Answer(answer, turn.conversation_id)

    def conversations(self, caller: Caller) -> list[dict[str, Any]]:
        """The caller's conversations, newest first: id, title, last change (ISO 8601).

        Args:
            caller: Who asks.
        """
        if self.keeper is None:
            return []
        return [
            {"id": item.id, "title": item.title, "updated": item.updated.isoformat()}
            for item in self.keeper.list(caller.owner)
        ]

    def read(self, caller: Caller, conversation_id: str, file_url: FileUrl) -> str:
        """One of the caller's conversations as Markdown: each message and each answer (the
        steps between them are left out).

        Args:
            caller: Who asks.
            conversation_id: Which conversation.
            file_url: Turns a served file's path into a URL.

        Raises:
            TurnRefused: Not a conversation of theirs (404), or it cannot be read (503).
        """
        if not is_conversation_id(conversation_id):
            raise TurnRefused(BAD_ID, 400)
        try:
            record = self.keeper.find(caller.owner, conversation_id) if self.keeper else None
        except ConversationUnavailableError as error:
            raise TurnRefused(str(error), 503) from None
        if record is None:
            raise TurnRefused(NOT_FOUND, 404)
        lines = [f"# {record.title}"]
        for message in self.keeper.chat(record):
            if message.get("metadata"):
                continue  # a step or its parts
            text = content_text(message.get("content"), file_url).strip()
            if text and not _footer(text):
                who = "User" if message.get("role") == "user" else "Agent"
                lines.append(f"**{who}:** {text}")
        return "\n\n".join(lines)


def given_file(item: dict[str, Any], index: int) -> GivenFile:
    """One of `ask_agent`'s files, read for `RequestFiles`.

    Args:
        item: `{"name", "data"}`, or a resource's contents (`uri`, `mimeType`, and `blob`
            in base64 or `text`); its name is `name`, else the URI's last part.
        index: Its place among the call's files.

    Raises:
        FilesRefused: It carries no content (a URI alone is never read or fetched).
    """
    label = f"files[{index}]"
    uri = str(item.get("uri") or "")
    name = str(item.get("name") or unquote(urlsplit(uri).path.rpartition("/")[2]))
    kind = str(item.get("mimeType") or "")
    if isinstance(item.get("data"), str):
        data = item["data"]
        return GivenFile(label, name, data, not data.lstrip().lower().startswith("data:"), kind)
    if isinstance(item.get("blob"), str):
        return GivenFile(label, name, item["blob"], True, kind)
    if isinstance(item.get("text"), str):
        encoded = base64.b64encode(item["text"].encode("utf-8")).decode("ascii")
        return GivenFile(label, name, encoded, True, kind or "text/plain")
    raise FilesRefused(
        f"{label} carries no content: give 'data' (base64) with a 'name', or a resource's "
        "'blob' or 'text' (a URI alone is not read)."
    )


def _footer(text: str) -> bool:
    return text.startswith("<sub>") and text.endswith("</sub>")
