"""A conversation's title follows the branch shown.

A title the app made is a quote of the person's first message (`title_of`). When another
first message is shown (it was edited, or the person switched to another of its versions)
the quote would name text that is no longer on screen, so the title follows it. When the
first message is undone, nothing is quoted any more: the title goes back to the default, which
the store replaces with a quote of the next first message. A title the person chose stays,
whatever is shown.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from smolui.conversations.keeper import ConversationKeeper

logger = logging.getLogger(__name__)


def quoted_title(text: str | None) -> str:
    """The title the app makes from a first message's text (the default title for none).

    Args:
        text: The text of the person's first message, or None.
    """
    from smolui.store.conversations import title_of

    return title_of([{"role": "user", "content": text}] if text else [])


def follow_first_message(
    keeper: ConversationKeeper | None,
    owner: str | None,
    conversation_id: str | None,
    before: str | None,
    after: str | None,
) -> bool:
    """Retitle the conversation after its first message changed from `before` to `after`,
    when its title is the one made from `before`. Returns True when it was renamed.

    The title is a nicety: a store that cannot be reached leaves it as it was.

    Args:
        keeper: The app's conversation keeper (None: nothing is stored).
        owner: Whose conversation (None: nobody's yet, nothing is stored).
        conversation_id: Which conversation (None: nothing is stored).
        before: The first message's text the title may have been made from.
        after: The first message's text shown now.
    """
    old, new = quoted_title(before), quoted_title(after)
    if old == new or not after:
        return False
    return _retitle(keeper, owner, conversation_id, old, new)


def forget_first_message(
    keeper: ConversationKeeper | None,
    owner: str | None,
    conversation_id: str | None,
    before: str | None,
) -> bool:
    """After the first message was undone: a title made from it goes back to the default
    title, so the next first message names the conversation. Returns True when it did.

    Args:
        keeper: The app's conversation keeper (None: nothing is stored).
        owner: Whose conversation (None: nobody's yet, nothing is stored).
        conversation_id: Which conversation (None: nothing is stored).
        before: The text of the first message undone.
    """
    old, new = quoted_title(before), quoted_title(None)
    if old == new:
        return False
    return _retitle(keeper, owner, conversation_id, old, new)


def _retitle(
    keeper: ConversationKeeper | None,
    owner: str | None,
    conversation_id: str | None,
    old: str,
    new: str,
) -> bool:
    """Rename the conversation from `old` to `new` when `old` is its title now."""
    if keeper is None or owner is None or conversation_id is None:
        return False
    try:
        stored = keeper.find(owner, conversation_id)
        if stored is None or stored.title != old:  # the person's own title, or none yet
            return False
        return keeper.rename(owner, conversation_id, new)
    except Exception:  # the store is unreachable: the title stays as it was
        logger.warning("could not retitle a conversation", exc_info=True)
        return False


__all__ = ["follow_first_message", "forget_first_message", "quoted_title"]
