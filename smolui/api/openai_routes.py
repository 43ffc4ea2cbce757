"""`/v1/models` and `/v1/chat/completions`: the agent as an OpenAI-compatible chat model.

The last user message is the task. The conversation it continues is the one named by the
`conversation_id` field (an extension; every response carries it), or else the one whose
messages the client sends before the task (as chat clients resend the whole chat), found by
their digest. Finished steps stream as `reasoning_content`, the answer as `content`.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations at run time,
# and they name classes imported inside `openai_router` (fastapi loads with the app, not here).
import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

from smolui.api.access import ApiAccess, Caller, Refused
from smolui.api.openai_content import message_files
from smolui.api.request_files import FilesRefused, GivenFile
from smolui.api.text import StepText, answer_text, footer_text
from smolui.api.turns import ApiTurn, ApiTurns, TurnRefused
from smolui.sessions import is_conversation_id

logger = logging.getLogger(__name__)

MODEL_ID = "smolui"
EARLIER_NOTE = "Earlier messages of this chat (sent from another place, shown for context):"


class NoThreads:
    """Threads when there is no store: resent messages always start a new conversation."""

    def find(self, owner: str, digest: str) -> str | None:
        """Nothing is found.

        Args:
            owner: Who asks.
            digest: The digest of the messages.
        """
        return None

    def remember(self, owner: str, digest: str, conversation_id: str) -> None:
        """Nothing is kept.

        Args:
            owner: Whose conversation.
            digest: The digest of the messages.
            conversation_id: The conversation.
        """


def messages_digest(owner: str, messages: list[dict[str, Any]]) -> str:
    """A stable digest of a chat's user and assistant messages (their text, trimmed).

    Args:
        owner: Whose chat (the same messages of two users are two threads).
        messages: OpenAI-style messages.
    """
    said = [(m.get("role"), _text(m.get("content")).strip()) for m in messages
            if m.get("role") in ("user", "assistant")]  # fmt: skip
    return hashlib.sha256(json.dumps([owner, said]).encode("utf-8")).hexdigest()


def _text(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text") or "") for p in content
                         if isinstance(p, dict) and p.get("type") == "text")  # fmt: skip
    return ""


def _error(status: int, message: str, code: str) -> Any:
    from fastapi.responses import JSONResponse

    return JSONResponse({"error": {"message": message, "type": code, "code": code}}, status)


_CODES = {400: "invalid_request_error", 401: "invalid_api_key", 403: "forbidden",
          404: "not_found", 409: "busy", 429: "rate_limit_exceeded",
          503: "unavailable"}  # fmt: skip


def openai_router(turns: ApiTurns, access: ApiAccess, threads: Callable[[], Any]) -> Any:
    """The `/v1` routes, as a FastAPI router for the app (`build_app` includes it).

    Args:
        turns: Starts turns through the page's turn path.
        access: Tells who calls.
        threads: Returns the `StoreThreads` (opens the store on first use).
    """
    from fastapi import APIRouter, Header, Request
    from fastapi.responses import StreamingResponse

    router = APIRouter(prefix="/v1")

    def who(request: Request, authorization: str | None) -> Caller | Any:
        found = access.caller(authorization, request)
        if isinstance(found, Refused):
            return _error(found.status, found.message, _CODES.get(found.status, "error"))
        return found

    @router.get("/models", include_in_schema=False)
    def models(request: Request, authorization: str | None = Header(None)) -> Any:
        caller = who(request, authorization)
        if not isinstance(caller, Caller):
            return caller
        entry = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "smolui"}
        return {"object": "list", "data": [entry]}

    @router.post("/chat/completions", include_in_schema=False)
    def completions(request: Request, body: dict[str, Any],
                    authorization: str | None = Header(None)) -> Any:  # fmt: skip
        caller = who(request, authorization)
        if not isinstance(caller, Caller):
            return caller
        asked = _request(body)
        if isinstance(asked, str):
            return _error(400, asked, "invalid_request_error")
        task, earlier, wanted, given = asked
        try:
            files = turns.files.save(given) if given else None
        except FilesRefused as refused:
            return _error(400, str(refused), "invalid_request_error")
        store = threads()
        digest = messages_digest(caller.owner, earlier) if earlier else None
        if wanted is None and digest is not None:
            wanted = store.find(caller.owner, digest)
            if wanted is None:  # a chat begun elsewhere: the agent reads it once
                task = _with_earlier(task, earlier)
        try:
            turn = turns.start(caller, task, wanted, files.paths if files else ())
        except TurnRefused as refused:
            if files is not None:  # no turn will ingest them
                files.discard()
            return _error(refused.status, refused.message, _CODES.get(refused.status, "error"))
        reply = _Reply(turn, str(body.get("model") or MODEL_ID), _file_url(request))

        def remember(answer: str) -> None:
            said = earlier + [{"role": "user", "content": asked[0]},
                              {"role": "assistant", "content": answer}]  # fmt: skip
            try:
                store.remember(
                    caller.owner, messages_digest(caller.owner, said), turn.conversation_id
                )
            except Exception:  # the next call then starts a new conversation; the turn stands
                logger.warning("could not keep an API thread", exc_info=True)

        if body.get("stream"):
            chunks = reply.chunks(remember)
            return StreamingResponse(chunks, media_type="text/event-stream")
        return reply.whole(remember)

    return router


Asked = tuple[str, list[dict[str, Any]], str | None, list[GivenFile]]


def _request(body: dict[str, Any]) -> Asked | str:
    """(task, earlier messages, conversation id, the task's files) of a request, or what is
    wrong with it. Files in earlier messages are not read again: the conversation has them,
    or (a chat begun elsewhere) the agent reads those messages' text only."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return "'messages' must be a non-empty list of messages."
    last = messages[-1]
    task = _text(last.get("content")).strip()
    try:
        files = message_files(last.get("content"))
    except FilesRefused as refused:
        return str(refused)
    if last.get("role") != "user" or not (task or files):
        return "The last message must be a user message with text or files: it is the agent's task."
    wanted = body.get("conversation_id")
    if wanted is not None and not is_conversation_id(wanted):
        return "'conversation_id' is not a conversation id."
    return task, [m for m in messages[:-1] if isinstance(m, dict)], wanted, files


def _with_earlier(task: str, earlier: list[dict[str, Any]]) -> str:
    lines = [f"{m.get('role')}: {_text(m.get('content')).strip()}" for m in earlier
             if m.get("role") in ("user", "assistant")]  # fmt: skip
    return f"{EARLIER_NOTE}\n" + "\n".join(lines) + f"\n\nNow: {task}" if lines else task


def _file_url(request: Any) -> Callable[[str], str]:
    base = str(request.base_url)
    return lambda path: f"{base}gradio_api/file={quote(path)}"


class _Reply:
    """One completion's response, whole or as server-sent events."""

    def __init__(self, turn: ApiTurn, model: str, file_url: Callable[[str], str]):
        self.turn, self.model, self.file_url = turn, model, file_url
        self.id = f"chatcmpl-{turn.conversation_id[:8]}{int(time.time() * 1000):x}"
        self.created = int(time.time())

    def whole(self, remember: Callable[[str], None]) -> dict[str, Any]:
        steps = StepText(self.file_url)
        for _ in self.turn.updates():
            pass  # the turn runs to its end; its last messages are kept
        last = self.turn.last
        reasoning = steps.new(last) + footer_text(last)
        answer = answer_text(last, self.file_url)
        remember(answer)
        message = {"role": "assistant", "content": answer, "reasoning_content": reasoning}
        return {"id": self.id, "object": "chat.completion", "created": self.created,
                "model": self.model, "conversation_id": self.turn.conversation_id,
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}  # fmt: skip

    def chunks(self, remember: Callable[[str], None]) -> Iterator[str]:
        steps, told = StepText(self.file_url), ""
        yield self._chunk({"role": "assistant", "content": ""})
        for messages, waiting in self.turn.updates():
            note = answer_text(messages, self.file_url) if waiting else ""
            if note and note != told:  # the place in the queue, as the page shows it
                told = note
                yield self._chunk({"reasoning_content": note + "\n\n"})
            reasoning = "" if waiting else steps.new(messages)
            if reasoning:
                yield self._chunk({"reasoning_content": reasoning})
        last = self.turn.last
        footer = footer_text(last)
        if footer:
            yield self._chunk({"reasoning_content": footer})
        answer = answer_text(last, self.file_url)
        remember(answer)
        yield self._chunk({"content": answer})
        yield self._chunk({}, finish="stop")
        yield "data: [DONE]\n\n"

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> str:
        chunk = {"id": self.id, "object": "chat.completion.chunk", "created": self.created,
                 "model": self.model, "conversation_id": self.turn.conversation_id,
                 "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
        return f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"
