"""Full-text search over conversations: SQLite FTS5 or PostgreSQL text search, prefix matching.

The user's words are reduced to plain word characters before they reach either query
language, so no input can change the query's meaning.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import text

from smolui.store.schema import Conversation

MAX_WORDS = 8


def words(query: str) -> list[str]:
    """The searchable words of `query` (letters, digits, underscore), at most `MAX_WORDS`.

    Args:
        query: What the user typed.
    """
    return re.findall(r"\w+", query or "")[:MAX_WORDS]


def matching(dialect: str, query: str) -> Any | None:
    """A WHERE clause on `Conversation` for conversations containing every word of `query`
    (each as a prefix), or None when the query has no word.

    Args:
        dialect: "sqlite" or "postgresql".
        query: What the user typed.
    """
    terms = words(query)
    if not terms:
        return None
    if dialect == "sqlite":
        expression = " AND ".join(f'"{term}"*' for term in terms)
        return Conversation.id.in_(
            text(
                "SELECT conversation_id FROM conversation_search WHERE conversation_search MATCH :q"
            ).bindparams(q=expression)
        )
    if dialect == "postgresql":
        expression = " & ".join(f"{term.lower()}:*" for term in terms)
        return text(
            "to_tsvector('simple', conversations.title || ' ' || conversations.search_text) "
            "@@ to_tsquery('simple', :q)"
        ).bindparams(q=expression)
    pattern = f"%{terms[0]}%"  # other databases: a plain substring match on the first word
    return Conversation.search_text.like(pattern) | Conversation.title.like(pattern)
