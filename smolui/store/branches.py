"""A conversation as a tree: branches, the path shown, and the versions of a message.

Each branch keeps its whole path as rows (the messages and memory steps from the first on),
so the branch shown reads and saves like a plain chat; `conversation_branches` records where
each branch parts from the one it came from. Two branches agree on every message before
their `fork`, so the versions of message `p` on the shown branch are found from the forks
alone: climb while the forks are at or after `p`, then every branch below that parts at
exactly `p` is another version. A version's branches are those below it that part after
`p`; switching to a version shows the one of them seen last.

These functions work inside a session the caller opened; `smolui.store.tree` checks owners.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from smolui.store import search
from smolui.store.rows import read_rows
from smolui.store.schema import ChatMessageRow, Conversation, ConversationBranch, MemoryStepRow


@dataclass(frozen=True)
class Versions:
    """The versions of one message of the branch shown.

    Args:
        position: The message's place in the chat shown.
        current: Which version is shown, from 1.
        total: How many versions the message has.
    """

    position: int
    current: int
    total: int


@dataclass(frozen=True)
class _Node:
    id: int
    parent: int | None
    fork: int
    seen: datetime


def add_root(session: Session, conversation_id: str, now: datetime) -> None:
    """Record a new conversation's first branch (number 0).

    Args:
        session: The open database session (its transaction creates the conversation).
        conversation_id: The new conversation.
        now: When.
    """
    session.add(ConversationBranch(conversation_id=conversation_id, id=0, parent=None, fork=0,
                                   seen_at=now))  # fmt: skip


def mark_seen(session: Session, conversation_id: str, branch: int, now: datetime) -> None:
    """Note that a branch is shown now (of a version's branches, the last seen is shown).

    Args:
        session: The open database session.
        conversation_id: Which conversation.
        branch: Which branch.
        now: When.
    """
    session.execute(
        update(ConversationBranch)
        .where(
            ConversationBranch.conversation_id == conversation_id, ConversationBranch.id == branch
        )  # fmt: skip
        .values(seen_at=now)
    )


def versions(session: Session, conversation_id: str, active: int, length: int) -> list[Versions]:
    """The messages of the branch shown that have more than one version, in chat order.

    Args:
        session: The open database session.
        conversation_id: Which conversation.
        active: The branch shown.
        length: How many messages it has (a fork right after them counts: the branch was
            just started, its message is on its way).
    """
    nodes = _nodes(session, conversation_id)
    if active not in nodes:
        return []
    forks = sorted({n.fork for n in nodes.values() if n.parent is not None})
    found = []
    for position in forks:
        if position > length:  # at `length`: the message a new branch is being answered with
            break
        heads = _versions_at(nodes, active, position)
        if len(heads) > 1:
            current = next(i for i, h in enumerate(heads) if active in _class(nodes, h, position))
            found.append(Versions(position, current + 1, len(heads)))
    return found


def pick(session: Session, conversation_id: str, active: int, position: int, step: int) -> int:
    """The branch to show for the version `step` away (-1: previous, 1: next) from the one
    shown at `position`; the branch shown when there is no such version.

    Args:
        session: The open database session.
        conversation_id: Which conversation.
        active: The branch shown.
        position: The message whose version changes.
        step: How many versions on (negative: back).
    """
    nodes = _nodes(session, conversation_id)
    if active not in nodes:
        return active
    heads = _versions_at(nodes, active, position)
    current = next((i for i, h in enumerate(heads) if active in _class(nodes, h, position)), 0)
    wanted = current + step
    if len(heads) < 2 or not 0 <= wanted < len(heads):
        return active
    members = _class(nodes, heads[wanted], position)
    return max(members, key=lambda b: (_naive(nodes[b].seen), b))


def fork(
    session: Session,
    conversation_id: str,
    parent: int,
    at: int,
    messages: list[Any],
    steps: list[Any],
    now: datetime,
) -> int:
    """Add a branch that parts from `parent` at message `at`, holding `messages` and `steps`
    (the path up to the fork), and return its number.

    Args:
        session: The open database session (its transaction holds the conversation's lock).
        conversation_id: Which conversation.
        parent: The branch it comes from.
        at: The first message that differs from the parent's.
        messages: Its chat so far (the parent's messages before `at`, or fewer).
        steps: Its memory so far.
        now: When.
    """
    highest = session.scalar(
        select(func.max(ConversationBranch.id)).where(
            ConversationBranch.conversation_id == conversation_id
        )
    )
    branch = (highest if highest is not None else 0) + 1
    session.add(ConversationBranch(conversation_id=conversation_id, id=branch, parent=parent,
                                   fork=at, seen_at=now))  # fmt: skip
    for model, items in ((ChatMessageRow, messages), (MemoryStepRow, steps)):
        if items:
            rows = [{"conversation_id": conversation_id, "branch": branch, "position": i,
                     "data": item} for i, item in enumerate(items)]  # fmt: skip
            session.execute(insert(model), rows)
    return branch


def steps_before_turn(steps: list[Any], turns: int) -> list[Any]:
    """The memory steps before the turn numbered `turns` (from 0): a turn starts with the
    step holding its task. All of them when the memory has fewer turns.

    Args:
        steps: The memory as data, one dict per step.
        turns: How many turns to keep.
    """
    seen = 0
    for index, step in enumerate(steps):
        if isinstance(step, dict) and step.get("type") == "TaskStep":
            if seen == turns:
                return steps[:index]
            seen += 1
    return list(steps)


def answered_turns(messages: list[Any]) -> int:
    """How many turns of `messages` the agent answered: the runs of the person's messages
    with something after them (the memory holds those; a turn whose answer is being made
    again starts afresh).

    Args:
        messages: A chat.
    """
    count, previous = 0, None
    for message in messages:
        role = message.get("role") if isinstance(message, dict) else None
        if role == "user" and previous != "user":
            count += 1
        previous = role
    return count - 1 if previous == "user" else count


def matching_branch(session: Session, conversation_id: str, active: int, query: str) -> int:
    """The branch to show for a search: the one shown when one of its messages holds a word
    of `query`, else the newest branch with such a message, else the one shown.

    Args:
        session: The open database session.
        conversation_id: Which conversation.
        active: The branch shown.
        query: What the person searched for.
    """
    statement = search.branches_matching(session.get_bind().dialect.name, query)
    if statement is None:
        return active
    found = set(session.scalars(statement, {"c": conversation_id}).all())
    if not found or active in found:
        return active
    return max(found)


def read_path(session: Session, conversation_id: str, branch: int) -> tuple[list, list]:
    """One branch's messages and memory steps, in order.

    Args:
        session: The open database session.
        conversation_id: Which conversation.
        branch: Which branch.
    """
    return (read_rows(session, ChatMessageRow, conversation_id, branch),
            read_rows(session, MemoryStepRow, conversation_id, branch))  # fmt: skip


def message_count(session: Session, conversation_id: str, branch: int) -> int:
    """How many messages one branch holds, counted in the database: the page asks after
    every turn, and reading (and decoding) a long conversation's rows each time would make
    a turn cost more the longer the conversation.

    Args:
        session: The open database session.
        conversation_id: Which conversation.
        branch: Which branch.
    """
    counted = select(func.count()).where(
        ChatMessageRow.conversation_id == conversation_id, ChatMessageRow.branch == branch
    )
    return int(session.execute(counted).scalar() or 0)


def show(session: Session, conversation_id: str, branch: int, now: datetime) -> None:
    """Make `branch` the one shown and saved to.

    Args:
        session: The open database session.
        conversation_id: Which conversation.
        branch: Which branch.
        now: When.
    """
    session.execute(
        update(Conversation).where(Conversation.id == conversation_id).values(active_branch=branch)
    )
    mark_seen(session, conversation_id, branch, now)


def _nodes(session: Session, conversation_id: str) -> dict[int, _Node]:
    columns = (ConversationBranch.id, ConversationBranch.parent, ConversationBranch.fork,
               ConversationBranch.seen_at)  # fmt: skip
    rows = session.execute(
        select(*columns).where(ConversationBranch.conversation_id == conversation_id)
    ).all()
    nodes = {r.id: _Node(r.id, r.parent, r.fork, r.seen_at) for r in rows}
    return nodes or {0: _Node(0, None, 0, datetime.now(UTC))}


def _versions_at(nodes: dict[int, _Node], active: int, position: int) -> list[int]:
    """The first branch of each version of message `position` (as seen from `active`),
    oldest first."""
    top = active
    while nodes[top].parent in nodes and nodes[top].fork >= position:
        top = nodes[top].parent  # type: ignore[assignment]
    heads = [top]
    below = [c for c in _children(nodes, top) if nodes[c].fork >= position]
    while below:
        branch = below.pop()
        if nodes[branch].fork == position:
            heads.append(branch)
        below += [c for c in _children(nodes, branch) if nodes[c].fork >= position]
    return [top] + sorted(heads[1:])


def _class(nodes: dict[int, _Node], head: int, position: int) -> set[int]:
    """The branches showing the same version of message `position` as `head`."""
    members, below = {head}, [head]
    while below:
        for child in _children(nodes, below.pop()):
            if nodes[child].fork > position:
                members.add(child)
                below.append(child)
    return members


def _children(nodes: dict[int, _Node], parent: int) -> list[int]:
    return [n.id for n in nodes.values() if n.parent == parent]


def _naive(value: datetime) -> datetime:
    """SQLite gives naive datetimes back; comparisons need one kind."""
    return value.replace(tzinfo=None) if value.tzinfo else value


__all__ = [
    "Versions",
    "add_root",
    "fork",
    "mark_seen",
    "matching_branch",
    "message_count",
    "pick",
    "read_path",
    "show",
    "steps_before_turn",
    "answered_turns",
    "versions",
]
