"""Which part of a long conversation the page shows: a window of its last messages.

The server holds the whole chat; the page's Chatbot holds only the messages from `start`
on, so what the page sends and receives, and what it redraws, stays the same size however
long the conversation grows. The messages before `start` stay on the server, and the page
asks for them ("Earlier messages") when the person scrolls back. A window always opens on a
message of the person's: a step's children never lose the step they belong to. It holds at
least the last few turns whole, however many step messages they hold: a reopened
conversation shows the questions it was about, not one answer's steps.

Every index the page gives (the message it edited, the version it switched) counts from
`start`; `full_index` turns it into the conversation's index, and `shown_versions` gives
the page's switchers their place within the window.
"""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]

# Messages the page holds after a cut (a step's thought, code and output count as messages
# too, so this is about three one-step turns); 0 keeps the whole chat on the page.
CHAT_WINDOW = 20

# Messages of a one-step turn (the question, the step, its thought, code and output, the
# answer, its footer): a window of `size` messages keeps at least `size // TURN_MESSAGES`
# turns, so turns of many steps do not leave it one question (a 20-message window: 3).
TURN_MESSAGES = 6


def turn_starts(chat: list[Message]) -> list[int]:
    """Where each of the person's turns begins: the first of a run of user messages.

    Args:
        chat: The conversation's messages.
    """
    starts, before = [], None
    for index, item in enumerate(chat):
        role = item.get("role")
        if role == "user" and before != "user":
            starts.append(index)
        before = role
    return starts


def window_start(chat: list[Message], size: int, keep: int | None = None) -> int:
    """Where the page's window opens: the first turn that fits in the last `size` messages,
    and no later than the first of the last `turns_kept(size)` turns (whole, however long)
    nor the turn holding message `keep`.

    Args:
        chat: The conversation's messages.
        size: Messages the window holds at most (0 or less: the whole chat).
        keep: A message the window must show (the one the person acted on), or None.
    """
    if size <= 0 or len(chat) <= size:
        return 0
    starts = turn_starts(chat)
    if not starts:  # nothing of the person's (notices only): nothing to open on
        return 0
    target = len(chat) - size
    start = next((s for s in starts if s >= target), starts[-1])
    start = min(start, starts[-min(turns_kept(size), len(starts))])
    if keep is not None:
        start = min(start, _turn_holding(starts, keep))
    return start


def turns_kept(size: int) -> int:
    """The turns a window of `size` messages shows at least (one for a window smaller than a
    one-step turn).

    Args:
        size: Messages the window holds (more than 0).
    """
    return max(1, size // TURN_MESSAGES)


def earlier_start(chat: list[Message], start: int, size: int) -> int:
    """Where the window opens once the person asks for earlier messages: about `size`
    messages before `start` as the person counts them (questions and answers, as
    `messages_seen`; a step's blocks are part of its answer), on a turn's first message, at
    least one turn earlier. Counting every block would bring back two questions of a chat
    whose answers take several steps.

    Args:
        chat: The conversation's messages.
        start: Where the window opens now.
        size: Messages to add at most (0 or less: all of them).
    """
    before = [s for s in turn_starts(chat) if s < start]
    if size <= 0 or not before:
        return 0
    chosen = before[-1]
    for turn in reversed(before[:-1]):
        if messages_seen(chat[turn:start]) > size:
            break
        chosen = turn
    return chosen


def full_index(start: int, index: int) -> int:
    """The conversation's index of the message at `index` in the page's window.

    Args:
        start: Where the window opens (how many messages the server holds back).
        index: A message's position as the page counts it.
    """
    if index < 0:
        raise ValueError(f"a message's position cannot be negative, got {index}")
    return start + index


def shown_versions(
    versions: list[dict[str, Any]], chat: list[Message], start: int
) -> list[dict[str, Any]]:
    """The switchers the window shows: each keeps its conversation `position` (what a click
    sends back) and gets its `turn` counted from the window's first turn; switchers of
    messages before the window are left out.

    Args:
        versions: `Branches.versions` of the conversation (turns counted from its start).
        chat: The conversation's messages (those before `start` suffice).
        start: Where the window opens.
    """
    hidden = sum(1 for s in turn_starts(chat) if s < start)
    shown = [{**v, "turn": v["turn"] - hidden} for v in versions]
    return [v for v in shown if v["turn"] >= 0]


def messages_seen(chat: list[Message]) -> int:
    """How many of `chat`'s messages a person sees as messages: theirs, and the agent's
    answers and notes. A step's blocks (its thought, code and logs) and a turn's footer
    are parts of an answer, not messages of their own.

    Args:
        chat: Messages, as the server keeps them or as the page sends them back.
    """
    return sum(1 for item in chat if _seen_as_message(item))


def _seen_as_message(item: Message) -> bool:
    if item.get("role") == "user":
        return True
    metadata = item.get("metadata") or {}
    if metadata.get("title") or metadata.get("parent_id"):  # a step or a part of one
        return False
    content = item.get("content")
    if isinstance(content, list):  # gradio's normalized form: a list of blocks
        content = next((b.get("text") for b in content if isinstance(b, dict)), None)
    return not (isinstance(content, str) and content.startswith("<sub>"))  # the footer


def _turn_holding(starts: list[int], index: int) -> int:
    """The first message of the turn holding message `index` (0 before any turn)."""
    return max((s for s in starts if s <= index), default=0)
