"""Approvals waiting for a person's answer, and each conversation's approval switch.

A turn that asks for approval adds a row here and waits; any page of any replica shows the
row and may answer it. `answer` is a conditional update (only a row still waiting changes),
so when two tabs answer at once exactly one answer wins and the other is told. The waiting
turn touches its row (`touch`) while it waits: a row nobody touched lately belongs to a turn
that is gone (the app restarted). With the row comes the model's output for its step
(`model_output`), so that such a turn can be resumed from the stored memory when the row is
answered, without asking the model again.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from smolui.store.schema import Base

WAITING, ANSWERED, WITHDRAWN = "waiting", "answered", "withdrawn"
TOOL_NAME_CHARS = 200
# A waiting turn touches its row this often; four times as long untouched: it is gone.
TOUCH_EVERY_S = 5.0
STALE_AFTER_S = 4 * TOUCH_EVERY_S


class PendingApprovalRow(Base):
    """One action a turn holds until a person answers."""

    __tablename__ = "pending_approvals"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    conversation_id: Mapped[str] = mapped_column(
        ForeignKey("conversations.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(8))  # "code" or "tool"
    step_number: Mapped[int] = mapped_column(Integer)
    code: Mapped[str | None] = mapped_column(Text, nullable=True)
    tool_name: Mapped[str | None] = mapped_column(String(TOOL_NAME_CHARS), nullable=True)
    arguments: Mapped[Any] = mapped_column(JSON, nullable=True)
    thought: Mapped[str | None] = mapped_column(Text, nullable=True)
    state: Mapped[str] = mapped_column(String(16), default=WAITING)
    decision: Mapped[Any] = mapped_column(JSON, nullable=True)  # action, code, arguments, reason
    # The step's model message as data (`ChatMessage.dict()`): what a resumed turn runs.
    model_output: Mapped[Any] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    touched_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ApprovalSwitchRow(Base):
    """A conversation's own approval setting (no row: the app's default)."""

    __tablename__ = "approval_switches"

    # No foreign key: the switch may be set before the conversation's first save.
    conversation_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    enabled: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    allowed_tools: Mapped[Any] = mapped_column(JSON, default=list)


_PENDING = PendingApprovalRow.__table__


@dataclass(frozen=True)
class StoredApproval:
    """A pending (or answered) approval as the store keeps it.

    Args:
        id: Its random id.
        conversation_id: The conversation whose turn asks.
        kind: "code" or "tool".
        step_number: The step the action belongs to.
        code: The code block (for a tool called from code, the code that calls it).
        tool_name: The tool called (None for a code block).
        arguments: The tool call's arguments (None for a code block).
        thought: What the model wrote before the action.
        state: "waiting", "answered" or "withdrawn" (the turn ended without an answer).
        decision: The answer (`action`, `code`, `arguments`, `reason`) once answered.
        stale: No turn has touched it lately: the turn that asked is gone.
        model_output: The model's message for the step, as data (None: not kept).
    """

    id: str
    conversation_id: str
    kind: str
    step_number: int
    code: str | None
    tool_name: str | None
    arguments: Any
    thought: str | None
    state: str
    decision: dict[str, Any] | None
    stale: bool = False
    model_output: dict[str, Any] | None = None


@dataclass(frozen=True)
class ApprovalSwitch:
    """A conversation's approval setting.

    Args:
        enabled: On or off for this conversation; None: the app's default.
        allowed_tools: Tools the person allowed for the rest of the conversation.
    """

    enabled: bool | None = None
    allowed_tools: tuple[str, ...] = ()


class ApprovalStore:
    """Pending approvals and approval switches in the store's database.

    Args:
        engine: The store's (migrated) SQLAlchemy engine.
    """

    def __init__(self, engine: Any):
        self.engine = engine

    # -- pending approvals ---------------------------------------------------------------

    def add(
        self,
        conversation_id: str,
        kind: str,
        step_number: int,
        code: str | None = None,
        tool_name: str | None = None,
        arguments: Any = None,
        thought: str | None = None,
        model_output: dict[str, Any] | None = None,
    ) -> StoredApproval:
        """Keep an action waiting for an answer; returns it with its new id.

        Args:
            conversation_id: The conversation whose turn asks (stored already).
            kind: "code" or "tool".
            step_number: The step the action belongs to.
            code: The code block, or the code calling the tool.
            tool_name: The tool called.
            arguments: The call's arguments (JSON data).
            thought: What the model wrote before the action.
            model_output: The step's model message as JSON data (to resume the turn).
        """
        now = _now()
        row = {
            "id": secrets.token_urlsafe(16), "conversation_id": conversation_id, "kind": kind,
            "step_number": step_number, "code": code, "tool_name": tool_name,
            "arguments": arguments, "thought": thought, "state": WAITING, "decision": None,
            "created_at": now, "touched_at": now, "answered_at": None,
            "model_output": model_output,
        }  # fmt: skip
        with self.engine.begin() as connection:
            connection.execute(insert(PendingApprovalRow), row)
        return _stored(row, now)

    def get(self, approval_id: str) -> StoredApproval | None:
        """The approval with this id, or None.

        Args:
            approval_id: Its id.
        """
        query = select(_PENDING).where(PendingApprovalRow.id == approval_id)
        with self.engine.connect() as connection:
            row = connection.execute(query).mappings().one_or_none()
        return _stored(dict(row), _now()) if row is not None else None

    def waiting(self, conversation_id: str) -> StoredApproval | None:
        """The conversation's oldest approval still waiting for an answer, or None.

        Args:
            conversation_id: The conversation.
        """
        query = (
            select(_PENDING)
            .where(
                PendingApprovalRow.conversation_id == conversation_id,
                PendingApprovalRow.state == WAITING,
            )
            .order_by(PendingApprovalRow.created_at)
            .limit(1)
        )
        with self.engine.connect() as connection:
            row = connection.execute(query).mappings().one_or_none()
        return _stored(dict(row), _now()) if row is not None else None

    def answer(self, approval_id: str, conversation_id: str, decision: dict[str, Any]) -> bool:
        """Answer an approval, if it still waits; True when this answer won.

        One statement that changes only a waiting row: of two answers at once (two tabs, two
        replicas) exactly one returns True.

        Args:
            approval_id: Its id.
            conversation_id: The conversation it must belong to.
            decision: `action` ("run", "edit", "skip", "stop"), and `code`, `arguments`,
                `reason` as the action needs.
        """
        return self._settle(approval_id, conversation_id, ANSWERED, decision)

    def withdraw(self, approval_id: str, conversation_id: str) -> bool:
        """The turn stopped waiting (Stop, or it ended): the approval can no longer be
        answered. True when it still waited.

        Args:
            approval_id: Its id.
            conversation_id: The conversation it belongs to.
        """
        return self._settle(approval_id, conversation_id, WITHDRAWN, None)

    def reopen(self, approval_id: str, conversation_id: str) -> bool:
        """Take an answer back: the turn it was for could not be resumed, so the action
        waits again (nothing ran). True when it was answered.

        Args:
            approval_id: Its id.
            conversation_id: The conversation it belongs to.
        """
        query = (
            update(PendingApprovalRow)
            .where(
                PendingApprovalRow.id == approval_id,
                PendingApprovalRow.conversation_id == conversation_id,
                PendingApprovalRow.state == ANSWERED,
            )
            .values(state=WAITING, decision=None, answered_at=None)
        )
        with self.engine.begin() as connection:
            return connection.execute(query).rowcount == 1

    def touch(self, approval_id: str) -> None:
        """Say the turn that asked still waits for the answer.

        Args:
            approval_id: Its id.
        """
        query = (
            update(PendingApprovalRow)
            .where(PendingApprovalRow.id == approval_id, PendingApprovalRow.state == WAITING)
            .values(touched_at=_now())
        )
        with self.engine.begin() as connection:
            connection.execute(query)

    def _settle(
        self, approval_id: str, conversation_id: str, state: str, decision: dict[str, Any] | None
    ) -> bool:
        query = (
            update(PendingApprovalRow)
            .where(
                PendingApprovalRow.id == approval_id,
                PendingApprovalRow.conversation_id == conversation_id,
                PendingApprovalRow.state == WAITING,
            )
            .values(state=state, decision=decision, answered_at=_now())
        )
        with self.engine.begin() as connection:
            return connection.execute(query).rowcount == 1

    # -- the per-conversation switch -----------------------------------------------------

    def switch(self, conversation_id: str) -> ApprovalSwitch:
        """The conversation's approval setting (the default one when it has none).

        Args:
            conversation_id: The conversation.
        """
        query = select(ApprovalSwitchRow.enabled, ApprovalSwitchRow.allowed_tools).where(
            ApprovalSwitchRow.conversation_id == conversation_id
        )
        with self.engine.connect() as connection:
            row = connection.execute(query).one_or_none()
        if row is None:
            return ApprovalSwitch()
        return ApprovalSwitch(row.enabled, tuple(row.allowed_tools or ()))

    def set_enabled(self, conversation_id: str, enabled: bool) -> None:
        """Turn approval on or off for a conversation.

        Args:
            conversation_id: The conversation.
            enabled: On or off.
        """
        self._upsert(conversation_id, enabled=bool(enabled))

    def allow_tool(self, conversation_id: str, tool_name: str) -> None:
        """Let calls to this tool run unasked for the rest of the conversation.

        Args:
            conversation_id: The conversation.
            tool_name: The tool.
        """
        allowed = set(self.switch(conversation_id).allowed_tools) | {tool_name}
        self._upsert(conversation_id, allowed_tools=sorted(allowed))

    def _upsert(self, conversation_id: str, **values: Any) -> None:
        where = ApprovalSwitchRow.conversation_id == conversation_id
        first = {"conversation_id": conversation_id, "enabled": None, "allowed_tools": []}
        for _ in range(2):  # a concurrent first insert: the second round updates its row
            with self.engine.begin() as connection:
                changed = connection.execute(
                    update(ApprovalSwitchRow).where(where).values(**values)
                )
                if changed.rowcount:
                    return
            try:
                with self.engine.begin() as connection:
                    connection.execute(insert(ApprovalSwitchRow), {**first, **values})
                return
            except IntegrityError:
                continue


def _stored(row: dict[str, Any], now: datetime) -> StoredApproval:
    touched = _utc(row["touched_at"])
    stale = row["state"] == WAITING and now - touched > timedelta(seconds=STALE_AFTER_S)
    return StoredApproval(
        id=row["id"],
        conversation_id=row["conversation_id"],
        kind=row["kind"],
        step_number=row["step_number"],
        code=row["code"],
        tool_name=row["tool_name"],
        arguments=row["arguments"],
        thought=row["thought"],
        state=row["state"],
        decision=row["decision"],
        stale=stale,
        model_output=row.get("model_output"),
    )


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)  # SQLite drops it


def _now() -> datetime:
    return datetime.now(UTC)
