"""One row per chat message and per memory step, so saving a turn writes only what changed.

Moves the chat and the memory each conversation kept whole into the new tables. Search then
looks in the message rows (indexed as they are inserted) and the titles, so a save no longer
reindexes the whole conversation's text.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_TABLES = ("conversation_messages", "memory_steps")

# SQLite: the titles stay in `conversation_search`; each message's text goes into
# `message_search`, under the rowid of its `conversation_messages` row.
_SQLITE_SEARCH = [
    "DROP TRIGGER conversations_search_insert",
    "DROP TRIGGER conversations_search_update",
    "DELETE FROM conversation_search",
    "INSERT INTO conversation_search(conversation_id, body) SELECT id, title FROM conversations",
    "CREATE TRIGGER conversations_search_insert AFTER INSERT ON conversations BEGIN "
    "INSERT INTO conversation_search(conversation_id, body) VALUES (new.id, new.title); END",
    "CREATE TRIGGER conversations_search_update AFTER UPDATE OF title ON conversations BEGIN "
    "DELETE FROM conversation_search WHERE conversation_id = old.id; "
    "INSERT INTO conversation_search(conversation_id, body) VALUES (new.id, new.title); END",
    "CREATE VIRTUAL TABLE message_search USING fts5("
    "body, tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER conversation_messages_search_insert AFTER INSERT ON conversation_messages "
    "WHEN json_type(new.data, '$.content') = 'text' BEGIN "
    "INSERT INTO message_search(rowid, body) "
    "VALUES (new.rowid, json_extract(new.data, '$.content')); END",
    "CREATE TRIGGER conversation_messages_search_delete AFTER DELETE ON conversation_messages "
    "BEGIN DELETE FROM message_search WHERE rowid = old.rowid; END",
]
# PostgreSQL: an expression index over each message's text, which the search query uses as is.
MESSAGE_TEXT = (
    "CASE WHEN json_typeof(data -> 'content') = 'string' THEN data ->> 'content' ELSE '' END"
)
_POSTGRES_SEARCH = [
    "DROP INDEX IF EXISTS ix_conversations_search",
    "CREATE INDEX ix_conversation_messages_search ON conversation_messages USING gin "
    f"(to_tsvector('simple', {MESSAGE_TEXT}))",
]


def upgrade() -> None:
    op.add_column("conversations", sa.Column("memory_version", sa.Integer(), nullable=True))
    op.add_column(
        "conversations", sa.Column("revision", sa.Integer(), nullable=False, server_default="0")
    )
    for name in _TABLES:
        op.create_table(
            name,
            sa.Column(
                "conversation_id",
                sa.String(64),
                sa.ForeignKey("conversations.id", ondelete="CASCADE"),
                primary_key=True,
            ),
            sa.Column("position", sa.Integer(), primary_key=True),
            sa.Column("data", sa.JSON(), nullable=False),
        )
    dialect = op.get_bind().dialect.name
    for statement in {"sqlite": _SQLITE_SEARCH, "postgresql": _POSTGRES_SEARCH}.get(dialect, []):
        op.execute(statement)
    _move_rows()  # after the triggers: the moved messages are indexed too


def _move_rows() -> None:
    """Each conversation's whole chat and memory become rows; the old columns are emptied."""
    conversations = sa.table(
        "conversations",
        sa.column("id", sa.String),
        sa.column("messages", sa.JSON),
        sa.column("memory", sa.JSON),
        sa.column("memory_version", sa.Integer),
        sa.column("search_text", sa.Text),
    )
    rows = {name: _row_table(name) for name in _TABLES}
    bind = op.get_bind()
    for conversation_id, messages, memory in bind.execute(
        sa.select(conversations.c.id, conversations.c.messages, conversations.c.memory)
    ).all():
        steps = memory.get("steps") if isinstance(memory, dict) else None
        if messages is not None and not isinstance(messages, list):
            messages = [messages]  # damaged: kept as a row that reads as damaged
        for name, items in (("conversation_messages", messages), ("memory_steps", steps)):
            if isinstance(items, list) and items:
                bind.execute(
                    sa.insert(rows[name]),
                    [
                        {"conversation_id": conversation_id, "position": index, "data": item}
                        for index, item in enumerate(items)
                    ],
                )
        version = memory.get("version") if isinstance(memory, dict) else None
        # A damaged memory (not a dict with a list of steps) keeps a version no reader knows,
        # so the conversation still shows as damaged instead of as empty.
        if memory is not None and not isinstance(steps, list):
            version = -1
        bind.execute(
            sa.update(conversations)
            .where(conversations.c.id == conversation_id)
            .values(messages=[], memory=sa.null(), memory_version=version, search_text="")
        )


def _row_table(name: str) -> sa.TableClause:
    return sa.table(
        name,
        sa.column("conversation_id", sa.String),
        sa.column("position", sa.Integer),
        sa.column("data", sa.JSON),
    )


def downgrade() -> None:
    # Back to 0003 the tables go; the chats and memories saved in them are not moved back.
    if op.get_bind().dialect.name == "sqlite":
        for name in ("insert", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS conversation_messages_search_{name}")
        op.execute("DROP TABLE IF EXISTS message_search")
    for name in _TABLES:
        op.drop_table(name)
    op.drop_column("conversations", "revision")
    op.drop_column("conversations", "memory_version")
