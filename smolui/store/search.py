"""Full-text search over conversations: SQLite FTS5 or PostgreSQL text search, prefix matching.

Titles, each message and the text of each uploaded document are indexed separately (a save
indexes only its new messages and files); a conversation matches when every word is in its
title, in one of its messages or in one of its documents.

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
# Of each uploaded document's text, about the first megabyte is kept for search...
DOCUMENT_CHARS = 1_000_000
# ...in pieces: PostgreSQL refuses a value whose words take over 1 MB to index, and one
# character may cost several bytes there (UTF-8, plus each word's entry and position).
PIECE_CHARS = 64_000


def document_pieces(content: str) -> list[str]:
    """The pieces of a document's text kept for search: at most `DOCUMENT_CHARS` characters,
    cut at a space or line break where one is near so that words stay whole, with the
    characters no database stores (NUL, unpaired surrogates) replaced.

    Args:
        content: The text extracted from the document.
    """
    content = content[:DOCUMENT_CHARS].replace("\x00", " ")
    content = content.encode("utf-8", "replace").decode("utf-8")
    pieces, start = [], 0
    while start < len(content):
        end = _piece_end(content, start)
        if content[start:end].strip():
            pieces.append(content[start:end])
        start = end
    return pieces


def _piece_end(content: str, start: int) -> int:
    """Where the piece from `start` ends: after the last blank of its second half, else at
    the limit (a word longer than half a piece is cut)."""
    limit = start + PIECE_CHARS
    if limit >= len(content):
        return len(content)
    blank = max(content.rfind(" ", limit - PIECE_CHARS // 2, limit),
                content.rfind("\n", limit - PIECE_CHARS // 2, limit))  # fmt: skip
    return blank + 1 if blank >= 0 else limit


def words(query: str) -> list[str]:
    """The searchable words of `query` (letters, digits, underscore), at most `MAX_WORDS`.

    Args:
        query: What the user typed.
    """
    return re.findall(r"\w+", query or "")[:MAX_WORDS]


def matching(dialect: str, query: str) -> Any | None:
    """A WHERE clause on `Conversation` for conversations containing every word of `query`
    (each as a prefix) in their title, any of their messages or any of their uploaded
    documents, or None when the query has no word.

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
    """Conversations whose title, one of whose messages or one of whose documents contains
    one word (FTS5)."""
    titles = text(
        f"SELECT conversation_id FROM conversation_search WHERE conversation_search MATCH :q{index}"
    ).bindparams(**{f"q{index}": expression})
    messages = text(
        "SELECT m.conversation_id FROM message_search AS s "
        "JOIN conversation_messages AS m ON m.rowid = s.rowid "
        f"WHERE message_search MATCH :m{index}"
    ).bindparams(**{f"m{index}": expression})
    documents = text(
        "SELECT t.conversation_id FROM upload_text_search AS s "
        "JOIN upload_texts AS t ON t.id = s.rowid "
        f"WHERE upload_text_search MATCH :d{index}"
    ).bindparams(**{f"d{index}": expression})
    return or_(
        Conversation.id.in_(titles), Conversation.id.in_(messages), Conversation.id.in_(documents)
    )


def _postgres_term(expression: str, index: int) -> Any:
    """Conversations whose title, one of whose messages or one of whose documents contains
    one word (text search)."""
    title = text(
        f"to_tsvector('simple', conversations.title) @@ to_tsquery('simple', :t{index})"
    ).bindparams(**{f"t{index}": expression})
    messages = text(
        "SELECT conversation_id FROM conversation_messages "
        f"WHERE to_tsvector('simple', {MESSAGE_TEXT}) @@ to_tsquery('simple', :m{index})"
    ).bindparams(**{f"m{index}": expression})
    documents = text(  # the expression of migration 0006's index
        "SELECT conversation_id FROM upload_texts "
        f"WHERE to_tsvector('simple', body) @@ to_tsquery('simple', :d{index})"
    ).bindparams(**{f"d{index}": expression})
    return or_(title, Conversation.id.in_(messages), Conversation.id.in_(documents))


def branches_matching(dialect: str, query: str) -> Any | None:
    """A statement selecting the branches of conversation `:c` holding a message with a word
    of `query` (each as a prefix), or None when the query has no word or the database has
    no text search.

    Args:
        dialect: "sqlite" or "postgresql".
        query: What the user typed.
    """
    terms = words(query)
    if not terms:
        return None
    if dialect == "sqlite":
        return text(
            "SELECT DISTINCT m.branch FROM message_search AS s "
            "JOIN conversation_messages AS m ON m.rowid = s.rowid "
            "WHERE message_search MATCH :q AND m.conversation_id = :c"
        ).bindparams(q=" OR ".join(f'"{term}"*' for term in terms))
    if dialect == "postgresql":
        return text(
            "SELECT DISTINCT branch FROM conversation_messages WHERE conversation_id = :c "
            f"AND to_tsvector('simple', {MESSAGE_TEXT}) @@ to_tsquery('simple', :q)"
        ).bindparams(q=" | ".join(f"{term.lower()}:*" for term in terms))
    return None
