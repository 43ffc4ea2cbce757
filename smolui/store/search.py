"""Full-text search over conversations: SQLite FTS5 or PostgreSQL text search, prefix matching.

Titles and each message are indexed separately (a save indexes only its new messages); a
conversation matches when every word is in its title or in one of its messages.

The user's words are reduced to plain word characters before they reach either query
language, so no input can change the query's meaning.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import and_, or_, text

from smolui.store.schema import Conversation

# Each message's text on PostgreSQL, exactly as migration 0004 indexes it.
MESSAGE_TEXT = (
    "CASE WHEN json_typeof(data -> 'content') = 'string' THEN data ->> 'content' ELSE '' END"
)

MAX_WORDS = 8


def words(query: str) -> list[str]:
    """The searchable words of `query` (letters, digits, underscore), at most `MAX_WORDS`.

    Args:
        query: What the user typed.
    """
    return re.findall(r"\w+", query or "")[:MAX_WORDS]


def matching(dialect: str, query: str) -> Any | None:
    """A WHERE clause on `Conversation` for conversations containing every word of `query`
    (each as a prefix) in their title or any of their messages, or None when the query has
    no word.

    Args:
        dialect: "sqlite" or "postgresql".
        query: What the user typed.
    """
    terms = words(query)
    if not terms:
        return None
    if dialect == "sqlite":
        return and_(*(_sqlite_term(f'"{term}"*', index) for index, term in enumerate(terms)))
    if dialect == "postgresql":
        return and_(*(_postgres_term(f"{term.lower()}:*", i) for i, term in enumerate(terms)))
    pattern = f"%{terms[0]}%"  # other databases: a plain substring match on the first word
    return Conversation.title.like(pattern)


def _sqlite_term(expression: str, index: int) -> Any:
    """Conversations whose title or one of whose messages contains one word (FTS5)."""
    titles = text(
        f"SELECT conversation_id FROM conversation_search WHERE conversation_search MATCH :q{index}"
    ).bindparams(**{f"q{index}": expression})
    messages = text(
        "SELECT m.conversation_id FROM message_search AS s "
        "JOIN conversation_messages AS m ON m.rowid = s.rowid "
        f"WHERE message_search MATCH :m{index}"
    ).bindparams(**{f"m{index}": expression})
    return or_(Conversation.id.in_(titles), Conversation.id.in_(messages))


def _postgres_term(expression: str, index: int) -> Any:
    """Conversations whose title or one of whose messages contains one word (text search)."""
    title = text(
        f"to_tsvector('simple', conversations.title) @@ to_tsquery('simple', :t{index})"
    ).bindparams(**{f"t{index}": expression})
    messages = text(
        "SELECT conversation_id FROM conversation_messages "
        f"WHERE to_tsvector('simple', {MESSAGE_TEXT}) @@ to_tsquery('simple', :m{index})"
    ).bindparams(**{f"m{index}": expression})
    return or_(title, Conversation.id.in_(messages))
