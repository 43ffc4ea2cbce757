"""From what the visitor sent to what the agent gets: the text, the attached files ingested
into the conversation's upload folder (with a note per file for the chat), or, for a retry,
the last request again after the agent undid its turn."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agents.loop.agent import MultiStepAgent
from smolui.render.attachments import attachment_notes
from smolui.render.messages import Message, render_notice
from smolui.sessions import Session
from smolui.turns.pending import PendingTurn
from smolui.turns.turn import TurnRequest
from smolui.uploads import UploadPolicy, ingest
from smolui.uploads.ingest import IngestResult, RefusedFile

logger = logging.getLogger(__name__)

FILES_ONLY_TASK = "The user sent these files without a message. Say briefly what they are."
NOTHING_TO_RETRY = "There is no previous message to retry."


@dataclass
class Prepared:
    """A request ready for the agent (None: nothing to run) and notes for the chat.

    Args:
        request: What the agent gets, or None when nothing is left to run.
        notes: Chat notices (files attached or refused, files over the cap).
        refused: The message's files that were refused (struck through in the chat).
    """

    request: TurnRequest | None
    notes: list[Message] = field(default_factory=list)
    refused: list[RefusedFile] = field(default_factory=list)


def prepare_request(
    session: Session,
    agent: MultiStepAgent,
    pending: PendingTurn,
    policy: UploadPolicy,
    max_files: int,
    upload_room: Callable[[str, int], str | None] | None = None,
) -> Prepared:
    """Turn the pending message into a request (ingesting its files), or redo the last one.

    Args:
        session: The conversation (its upload folder, files and last request).
        agent: Its agent (whether the model takes images; undoing a retried turn).
        pending: A message from the message box, or a retry.
        policy: Upload limits.
        max_files: Most files per message; the rest are refused with a note.
        upload_room: The owner's quota: None when this many more bytes fit, else the
            refusal, which every file of the message gets (none is stored).
    """
    if pending.retry:
        return _retry(session, agent)
    paths = list(pending.files)
    notes: list[Message] = []
    if len(paths) > max_files:
        dropped = [os.path.basename(p) for p in paths[max_files:]]
        notes.append(
            render_notice(
                f"Only {max_files} files can be attached to one message; "
                f"not attached: {', '.join(dropped)}.",
                "⚠️",
            )
        )
        paths = paths[:max_files]
    text = pending.text
    if session.resume_note:  # one line for the model: the code's variables are gone
        text, session.resume_note = f"{session.resume_note}\n{text}", None
    images: list[Any] = []
    refused: list[RefusedFile] = []
    if paths:
        named = [(os.path.basename(p), p) for p in paths]
        result = _over_quota(session, named, upload_room)
        if result is None:
            supports_images = agent.model.supports_images
            result = ingest(named, session.upload_dir, policy, images_to_model=supports_images)
        session.files.extend(result.accepted)
        notes += attachment_notes(result)
        refused = result.refused
        if not result.accepted and not text:
            return Prepared(None, notes, refused)
        text = result.task(text or FILES_ONLY_TASK)
        images = result.images
    request = TurnRequest(text, images)
    session.last_request = request
    return Prepared(request, notes, refused)


def _over_quota(
    session: Session,
    named: list[tuple[str, str]],
    upload_room: Callable[[str, int], str | None] | None,
) -> IngestResult | None:
    """Every file refused when the message's files would take the owner past their quota
    (checked before anything is stored), else None."""
    if upload_room is None or session.owner is None:
        return None
    refusal = upload_room(session.owner, sum(_size(path) for _, path in named))
    if refusal is None:
        return None
    reason = refusal.rstrip(".")  # the notes end each reason with their own full stop
    return IngestResult(refused=[RefusedFile(name, reason) for name, _ in named])


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:  # gone: ingesting it refuses it with its own reason
        return 0


def _retry(session: Session, agent: MultiStepAgent) -> Prepared:
    """The last request again, once the agent forgot its turn (memory and variables)."""
    if session.last_request is None:
        return Prepared(None, [render_notice(NOTHING_TO_RETRY)])
    try:
        agent.undo_last_turn()
    except Exception:  # a broken executor: the next execution reports it to the model
        logger.warning("undoing the last turn failed", exc_info=True)
    return Prepared(session.last_request)
